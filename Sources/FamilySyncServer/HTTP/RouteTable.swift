import FamilySyncCore
import HTTPTypes
import Hummingbird
import Synchronization

/// Route patterns and their methods. Patterns are as `RouterPath` prints them: `/v1/devices/{id}`.
package final class RouteTable: Sendable {
    package init() {}

    private static func isParameter(_ segment: Substring) -> Bool {
        segment.hasPrefix("{") || segment.hasPrefix(":") || segment == "*"
    }

    private struct Entry {
        var pattern: String
        var segments: [Substring]
        var methods: [HTTPRequest.Method]
    }

    private let entries = Mutex<[Entry]>([])

    func add(_ pattern: String, method: HTTPRequest.Method) {
        entries.withLock { entries in
            if let index = entries.firstIndex(where: { $0.pattern == pattern }) {
                if !entries[index].methods.contains(method) { entries[index].methods.append(method) }
            } else {
                entries.append(Entry(pattern: pattern, segments: pattern.split(separator: "/"), methods: [method]))
            }
        }
    }

    /// Every pattern with the methods it serves, in the order added.
    var routes: [(path: String, methods: Set<HTTPRequest.Method>)] {
        entries.withLock { $0.map { ($0.pattern, Set($0.methods)) } }
    }

    /// The pattern a concrete path matches, literal segments before parameters as the router
    /// matches them, and the methods it serves; nil for a path no route has.
    package func match(_ path: String) -> (pattern: String, methods: [HTTPRequest.Method])? {
        let segments = path.split(separator: "/")
        return entries.withLock { entries in
            let matching = entries.filter { entry in
                entry.segments.count == segments.count
                    && zip(entry.segments, segments).allSatisfy { Self.isParameter($0) || $0 == $1 }
            }
            // The most literal pattern wins, as in the router's trie (`/v1/devices/me` over `/v1/devices/{id}`).
            let best = matching.max { $0.segments.filter { !Self.isParameter($0) }.count < $1.segments.filter { !Self.isParameter($0) }.count }
            return best.map { ($0.pattern, $0.methods) }
        }
    }
}
