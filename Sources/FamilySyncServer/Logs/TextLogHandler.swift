import Logging

/// swift-log's `StreamLogHandler`, with the logger's metadata kept here and given to it only when
/// a line is written. `StreamLogHandler` renders its metadata as text each time a value is set,
/// and Hummingbird sets `hb.request.id` on every request's logger: 1.0–1.2 % of a nothing-new
/// fetch's CPU (Benchmarks/README.md, "A connection on its loop"), for lines that at `info` are
/// never written. The lines are `StreamLogHandler`'s, byte for byte: the logger's metadata, then
/// the provider's, then the call's, each over the one before.
public struct TextLogHandler: LogHandler {
    private var stream: StreamLogHandler
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// Lines on standard error, as `familysync serve` writes them.
    public static func standardError(label: String, metadataProvider: Logger.MetadataProvider? = nil) -> TextLogHandler {
        TextLogHandler(StreamLogHandler.standardError(label: label), metadataProvider: metadataProvider)
    }

    /// Lines on standard output.
    public static func standardOutput(label: String, metadataProvider: Logger.MetadataProvider? = nil) -> TextLogHandler {
        TextLogHandler(StreamLogHandler.standardOutput(label: label), metadataProvider: metadataProvider)
    }

    private init(_ stream: StreamLogHandler, metadataProvider: Logger.MetadataProvider?) {
        var stream = stream
        stream.metadataProvider = nil
        self.stream = stream
        self.metadataProvider = metadataProvider
    }

    public var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { merged.merge(provided) { _, provided in provided } }
        if let explicit = event.metadata, !explicit.isEmpty { merged.merge(explicit) { _, explicit in explicit } }
        event.metadata = merged
        stream.log(event: event)
    }
}
