import Logging

/// The request's ids in its log lines (`request_id`, and `device_id` once authenticated), held in
/// task-locals that a log handler's metadata provider reads when it writes a line. Set on the
/// request's logger instead, they were rendered into the handler's metadata on every request
/// (swift-log's `StreamLogHandler` renders it each time it is set): 3 % of a nothing-new fetch's
/// CPU (Benchmarks/README.md, "The floor"), for lines that are mostly never written.
public enum RequestLogMetadata {
    @TaskLocal static var requestID: String?
    @TaskLocal static var deviceID: String?

    /// What `familysync`'s log handlers add to each line (`LoggingOptions.bootstrap`).
    public static let provider = Logger.MetadataProvider {
        var metadata: Logger.Metadata = [:]
        if let requestID { metadata["request_id"] = .string(requestID) }
        if let deviceID { metadata["device_id"] = .string(deviceID) }
        return metadata
    }
}
