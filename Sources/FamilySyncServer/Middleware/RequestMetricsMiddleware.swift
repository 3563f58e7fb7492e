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
package struct RequestMetricsMiddleware: RouterMiddleware {
    package init() {}

    package typealias Context = FamilySyncRequestContext

    private let cache = RequestMetricsCache()

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
