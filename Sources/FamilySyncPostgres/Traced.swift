import Tracing

/// The request's tracer, when tracing is on (docs/operations.md, "Traces"): the server's request
/// middleware sets it for the request's task, and the stores' spans (a lease's wait, a family's
/// lock, each SQL statement) read it here. Off, each of them costs one task-local read.
public enum Traced {
    @TaskLocal public static var tracer: (any Tracer)?

    /// `body` in a span named `name`, a child of the current one, when tracing is on. `body` may
    /// add attributes to the span it is given (nil when off).
    public static func span<Result>(
        _ name: String, kind: SpanKind = .internal, attributes: (inout SpanAttributes) -> Void = { _ in },
        _ body: ((any Span)?) async throws -> Result
    ) async throws -> Result {
        guard let tracer else { return try await body(nil) }
        let span = tracer.startSpan(name, context: InstrumentationContext.current ?? .topLevel, ofKind: kind)
        span.updateAttributes(attributes)
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) { try await body(span) }
        } catch {
            span.recordError(error)
            throw error
        }
    }

    /// A span the caller ends, for a wait that ends inside other work (a lease's, a lock's).
    public static func start(_ name: String, kind: SpanKind = .internal) -> (any Span)? {
        tracer?.startSpan(name, context: InstrumentationContext.current ?? .topLevel, ofKind: kind)
    }
}
