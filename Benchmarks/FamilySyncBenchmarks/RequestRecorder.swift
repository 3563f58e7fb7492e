import FamilySyncClient
import Foundation
import Synchronization

/// Every exchange of every simulated device, by endpoint (its route, identifiers replaced by
/// `{id}`): statuses and durations, from the SDK's `observer`.
final class RequestRecorder: Sendable {
    struct Endpoint {
        var statuses: [String: Int] = [:]
        var milliseconds: [Double] = []
    }

    private let endpoints = Mutex<[String: Endpoint]>([:])

    func record(_ metrics: RequestMetrics) {
        let key = metrics.method + " " + Self.route(metrics.path)
        let status = metrics.status.map(String.init) ?? "no answer"
        let milliseconds = seconds(metrics.duration) * 1000
        endpoints.withLock { endpoints in
            endpoints[key, default: Endpoint()].statuses[status, default: 0] += 1
            endpoints[key, default: Endpoint()].milliseconds.append(milliseconds)
        }
    }

    var snapshot: [String: Endpoint] { endpoints.withLock { $0 } }

    /// `/v1/zones/child-3f…/changes` → `/v1/zones/{zone}/changes`: one row per route.
    static func route(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            if segment.count >= 36, segment.suffix(36).filter({ $0 == "-" }).count == 4 {
                return segment.count == 36 ? "{id}" : "{zone}"
            }
            return String(segment)
        }.joined(separator: "/")
    }
}
