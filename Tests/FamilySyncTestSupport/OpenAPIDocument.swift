import Foundation

/// docs/openapi.yaml, read as text: what the server tests hold the router to and what the SDK's
/// tests hold its calls to.
public enum OpenAPIDocument {
    public static let text: String = (try? String(
        contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8
    )) ?? ""

    /// `path → methods` as the document lists them (two-space paths, four-space methods).
    public static var routes: [String: Set<String>] {
        var routes: [String: Set<String>] = [:]
        var current: String?
        var inPaths = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, !line.hasPrefix(" "), !line.isEmpty { inPaths = false }
            guard inPaths else { continue }
            if let match = line.wholeMatch(of: /\ {2}(\/\S*):/) {
                current = String(match.1)
                routes[current!] = []
            } else if let match = line.wholeMatch(of: /\ {4}(get|put|post|patch|delete|head|options):/), let current {
                routes[current]?.insert(match.1.uppercased())
            }
        }
        return routes
    }
}
