import FamilySyncPostgres
import HTTPTypes
import Hummingbird
import Tracing
import W3CTraceContext

/// A server span per request when tracing is on (docs/operations.md, "Traces"): named for its
/// method and route template, with the status. Hummingbird's `TracingMiddleware` records the path
/// and query, which carry family, device and member ids, and uses the process-wide tracer; this
/// one records the path only when the operator asks (`--trace-ids`), and hands its own tracer to
/// the stores' spans (`Traced`) for the request's task. A `traceparent` a caller sent is a link
/// of the request's span, not its parent: any client may send one, and as a parent it would
/// choose the trace's id and whether it is sampled, past `--trace-sample-ratio`.
package struct RequestSpanMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    let tracer: any Tracer
    /// Whether spans carry the request's path (with its ids).
    let recordsPaths: Bool

    package init(tracer: any Tracer, recordsPaths: Bool) {
        self.tracer = tracer
        self.recordsPaths = recordsPaths
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let span = tracer.startSpan("\(request.method.rawValue)", context: InstrumentationContext.topLevel, ofKind: .server)
        defer { span.end() }
        if let headers = TraceHeaders(request.headers) {
            var caller = InstrumentationContext.topLevel
            tracer.extract(headers, into: &caller, using: TraceHeaders.Reader())
            span.addLink(SpanLink(context: caller, attributes: [:]))
        }
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
            Traced.failed(span, error)
            throw error
        }
    }

}
