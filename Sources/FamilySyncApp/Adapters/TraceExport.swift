import FamilySyncServer
import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Traces by OpenTelemetry (docs/operations.md, "Traces"): off unless the operator names a
/// collector. The backend's tracer goes to the server's requests and stores only (no
/// process-wide bootstrap, so a process may run several servers, as the tests do), and its
/// service exports spans in batches beside the server; `serve` makes it the group's first
/// service, so the last to stop, and the final requests' spans are sent.
public struct TraceExport: Sendable {
    public let tracer: any Tracer
    public let service: any Service
    /// Where spans go.
    public let endpoint: String

    /// OTLP/HTTP to `endpoint`'s `/v1/traces` (protobuf; JSON for a test's receiver), sampling
    /// `ratio` of the requests (every trace begins here: `RequestSpanMiddleware`), in
    /// batches every `exportDelay`. OpenTelemetry's standard `OTEL_*` variables refine it
    /// (headers, compression, TLS files).
    public static func start(
        endpoint: String, ratio: Double = 1, exportDelay: Duration = .seconds(1), json: Bool = false, logger: Logger? = nil
    ) throws -> TraceExport {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "familysync"
        // Its own warnings (a batch it could not send) in the server's log, in the server's format.
        if let logger { configuration.diagnosticLogger = .custom(logger) }
        configuration.diagnosticLogLevel = .warning
        // swift-otel sends one batch a tick, a tick every `scheduleDelay` or when the queue is
        // full: with OpenTelemetry's defaults (512 of a queue of 2,048, every 5 s) it sent 13
        // batches a second at 3,400 requests a second and still dropped some, with a warning
        // each tick (familysync-bench tracing). A batch the size of the queue sends all that
        // waits each time: one batch a second.
        configuration.traces.batchSpanProcessor.maxQueueSize = 16_384
        configuration.traces.batchSpanProcessor.maxExportBatchSize = 16_384
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.endpoint = endpoint.hasSuffix("/") ? "\(endpoint)v1/traces" : "\(endpoint)/v1/traces"
        configuration.traces.otlpExporter.protocol = json ? .httpJSON : .httpProtobuf
        configuration.traces.sampler = ratio >= 1 ? .alwaysOn : (.traceIDRatio(ratio: max(0, ratio)) ?? .alwaysOn)
        configuration.traces.batchSpanProcessor.scheduleDelay = exportDelay
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        return TraceExport(tracer: backend.factory, service: backend.service, endpoint: configuration.traces.otlpExporter.endpoint)
    }
}
