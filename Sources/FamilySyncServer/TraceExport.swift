import Foundation
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
    /// `ratio` of the traces that begin here (a caller's `traceparent` decides for its own), in
    /// batches every `exportDelay`. OpenTelemetry's standard `OTEL_*` variables refine it
    /// (headers, compression, TLS files).
    public static func start(endpoint: String, ratio: Double = 1, exportDelay: Duration = .seconds(5), json: Bool = false) throws -> TraceExport {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "familysync"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.endpoint = endpoint.hasSuffix("/") ? "\(endpoint)v1/traces" : "\(endpoint)/v1/traces"
        configuration.traces.otlpExporter.protocol = json ? .httpJSON : .httpProtobuf
        configuration.traces.sampler = ratio >= 1 ? .parentBasedAlwaysOn : (.parentBasedTraceIDRatio(ratio: max(0, ratio)) ?? .parentBasedAlwaysOn)
        configuration.traces.batchSpanProcessor.scheduleDelay = exportDelay
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        return TraceExport(tracer: backend.factory, service: backend.service, endpoint: configuration.traces.otlpExporter.endpoint)
    }
}
