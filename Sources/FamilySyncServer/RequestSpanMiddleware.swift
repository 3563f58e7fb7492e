import FamilySyncPostgres
import HTTPTypes
import Hummingbird
import Tracing

/// A server span per request when tracing is on (docs/operations.md, "Traces"): named for its
/// method and route template, with the status. Hummingbird's `TracingMiddleware` records the path
/// and query, which carry family, device and member ids, and uses the process-wide tracer; this
/// one records the path only when the operator asks (`--trace-ids`), and hands its own tracer to
/// the stores' spans (`Traced`) for the request's task. A `traceparent` the client sent is
/// continued.
struct RequestSpanMiddleware: RouterMiddleware {
    typealias Context = FamilySyncRequestContext

    let tracer: any Tracer
    /// Whether spans carry the request's path (with its ids).
    let recordsPaths: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = InstrumentationContext.topLevel
        tracer.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let span = tracer.startSpan("\(request.method.rawValue)", context: parent, ofKind: .server)
        defer { span.end() }
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            if recordsPaths { attributes["url.path"] = request.uri.path }
        }
        do {
            let response = try await Traced.$tracer.withValue(tracer) {
                try await InstrumentationContext.$current.withValue(span.context) { try await next(request, context) }
            }
            if let route = context.endpointPath {
                span.operationName = "\(request.method.rawValue) \(route)"
                span.attributes["http.route"] = route
            }
            span.attributes["http.response.status_code"] = Int(response.status.code)
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        } catch {
            // Below the error middleware nothing is thrown; a cancelled request is.
            span.recordError(error)
            throw error
        }
    }
}

private struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from headers: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { headers[$0] }
    }
}
