import FamilySyncCore
import Synchronization
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
            failed(span, error)
            throw error
        }
    }

    /// A SQL statement's span: named for its first word (`SELECT`, `WITH`, `COMMIT`), with its
    /// text, which has `$n` for every value (they are bound, never written into it).
    static func statement<Result>(_ sql: String, _ body: ((any Span)?) async throws -> Result) async throws -> Result {
        let operation = sql.split(whereSeparator: { $0.isWhitespace || $0 == "(" }).first.map { $0.uppercased() } ?? "SQL"
        return try await span(operation, kind: .client, attributes: { attributes in
            attributes["db.system.name"] = "postgresql"
            attributes["db.query.text"] = sql
        }, body)
    }

    /// A span the caller ends, for a wait that ends inside other work (a lease's, a lock's).
    public static func start(_ name: String, kind: SpanKind = .internal) -> Wait? {
        tracer.map { Wait($0.startSpan(name, context: InstrumentationContext.current ?? .topLevel, ofKind: kind)) }
    }

    /// Marks `span` failed with what failed, never the error's text: errors name zones (with a
    /// device's id), records and values a client sent, which no span may carry.
    public static func failed(_ span: any Span, _ error: any Error) {
        let what = (error as? FamilySyncError).map(\.code.rawValue) ?? (error is CancellationError ? "cancelled" : String(describing: type(of: error)))
        span.setStatus(SpanStatus(code: .error, message: what))
        span.attributes["error.type"] = what
    }

    /// A span ended once, by whichever of its ends comes first (its wait over, or the work it was
    /// in given up), as the tracing API asks.
    public final class Wait: Sendable {
        private let span: Mutex<(any Span)?>

        init(_ span: any Span) {
            self.span = Mutex(span)
        }

        public func end(failing error: (any Error)? = nil) {
            guard let span = self.span.withLock({ span in defer { span = nil }; return span }) else { return }
            if let error { Traced.failed(span, error) }
            span.end()
        }
    }
}
