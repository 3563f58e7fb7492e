import Dispatch
import Hummingbird
import Metrics
import Synchronization

/// Hummingbird's request metrics, the same names and labels (`hb.requests`,
/// `http.server.request.duration`, `hb.request.errors`, `http.server.active_requests`), counted
/// when the answer has been written, with the status it was written with. Hummingbird's
/// `MetricsMiddleware` takes the status as the chain returns, which for a parked poll is its
/// placeholder's 200 (`PollParking`): a poll whose client left (499) or whose read after a wake
/// failed would count as a success. Outside the chain, it would keep its frames in a held poll's
/// task. So this one, in the chain, asks the request's parking for the answer's status.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = FamilySyncRequestContext

    private let cache = RequestMetricsCache()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = cache.active(request.method)
        active.increment()
        do {
            var response = try await next(request, context)
            let chainStatus = response.status, parking = PollParking.current, body = response.body, cache = cache
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer {
                    let status = parking?.answeredStatus ?? chainStatus
                    let metrics = cache.endpoint(context.endpointPath ?? "Unknown", request.method, status)
                    metrics.requests.increment()
                    metrics.duration.recordNanoseconds(DispatchTime.now().uptimeNanoseconds - start)
                    active.decrement()
                }
                try await body.write(writer)
            }
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let metrics = cache.endpoint(context.endpointPath ?? "NotFound", request.method, status)
            metrics.requests.increment()
            metrics.errors.increment()
            active.decrement()
            throw error
        }
    }
}

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
