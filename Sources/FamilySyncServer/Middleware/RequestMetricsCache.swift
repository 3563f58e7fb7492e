import Dispatch
import Hummingbird
import Metrics
import Synchronization

/// The metrics of each route, method and status, made once.
final class RequestMetricsCache: Sendable {
    struct Endpoint: Sendable {
        let requests: Counter
        let duration: Timer
        let errors: Counter
    }

    private struct Key: Hashable {
        var route: String
        var method: HTTPRequest.Method
        var status: Int
    }

    private let endpoints = Mutex<[Key: Endpoint]>([:])
    private let meters = Mutex<[HTTPRequest.Method: Meter]>([:])

    func active(_ method: HTTPRequest.Method) -> Meter {
        meters.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.description)])
            meters[method] = meter
            return meter
        }
    }

    func endpoint(_ route: String, _ method: HTTPRequest.Method, _ status: HTTPResponse.Status) -> Endpoint {
        let key = Key(route: route, method: method, status: status.code)
        return endpoints.withLock { endpoints in
            if let endpoint = endpoints[key] { return endpoint }
            let labels = [("http.route", route), ("http.request.method", method.description), ("http.response.status_code", status.code.description)]
            let endpoint = Endpoint(
                requests: Counter(label: "hb.requests", dimensions: labels),
                duration: Timer(label: "http.server.request.duration", dimensions: labels, preferredDisplayUnit: .seconds),
                errors: Counter(label: "hb.request.errors", dimensions: [labels[0], labels[1], ("error.type", status.code.description)])
            )
            endpoints[key] = endpoint
            return endpoint
        }
    }
}
