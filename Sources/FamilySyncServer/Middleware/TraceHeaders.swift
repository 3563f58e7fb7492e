import FamilySyncPostgres
import HTTPTypes
import Hummingbird
import Tracing
import W3CTraceContext

/// A request's trace context headers alone, and only when they read as W3C Trace Context: what a
/// tracer extracts from. swift-otel logs the whole carrier of a header it cannot read, and with
/// the request's headers that was the caller's `Authorization`; a malformed
/// `traceparent` now reaches no tracer (and fills no log), and the carrier prints no value.
struct TraceHeaders: Sendable, CustomStringConvertible {
    let traceparent: String
    let tracestate: String?

    init?(_ headers: HTTPFields) {
        guard let traceparent = headers[Self.traceparentName] else { return nil }
        let tracestate = headers[Self.tracestateName]
        guard (try? TraceContext(traceParentHeaderValue: traceparent, traceStateHeaderValue: tracestate)) != nil else { return nil }
        self.traceparent = traceparent
        self.tracestate = tracestate
    }

    var description: String { "trace context headers" }

    struct Reader: Extractor {
        func extract(key: String, from headers: TraceHeaders) -> String? {
            switch key.lowercased() {
            case "traceparent": headers.traceparent
            case "tracestate": headers.tracestate
            default: nil
            }
        }
    }

    static let traceparentName = HTTPField.Name("traceparent")!
    static let tracestateName = HTTPField.Name("tracestate")!
}
