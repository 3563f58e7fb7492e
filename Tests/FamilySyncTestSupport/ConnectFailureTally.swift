import FamilySyncPostgres
import Foundation
import Logging
import Synchronization

/// The database connections that failed in this run, counted by error and printed as the run ends.
/// A test's "the database is unavailable" says nothing of why; the pool says why only in its
/// warning, which the suite's quiet logger and its server processes' log files keep to themselves.
/// Some failures are a test's own doing (a database it stopped); the count tells those apart from a
/// cluster that refused everyone.
public enum ConnectFailureTally {
    /// What the pool logs when a connection cannot be opened, and when a lease's wait ran out
    /// while its connection was being opened.
    public static let message = LoopBoundPool.connectFailedMessage.description
    public static let slowConnectMessage = LoopBoundPool.slowConnectMessage.description

    private static let counts = Mutex<[String: Int]>([:])
    private static let reportAtExit: Void = { atexit { ConnectFailureTally.printReport() } }()

    public static func record(_ error: String) {
        _ = reportAtExit
        counts.withLock { $0[String(error.prefix(240)), default: 0] += 1 }
    }

    /// The failures a server process logged, from its log's text (each line that names the message):
    /// the `error` metadata of a text line, `… error=WHAT request_id=… [FamilySyncPostgres] …`, or
    /// the whole line of another format.
    public static func record(logText: String) {
        for line in logText.split(separator: "\n") where line.contains(slowConnectMessage) {
            record(slowConnectMessage)
        }
        for line in logText.split(separator: "\n") where line.contains(message) {
            guard let start = line.range(of: "error=") else {
                record(String(line))
                continue
            }
            var error = line[start.upperBound...]
            if let end = error.range(of: " [FamilySyncPostgres]") { error = error[..<end.lowerBound] }
            if let end = error.range(of: " request_id=") { error = error[..<end.lowerBound] }
            record(String(error))
        }
    }

    private static func printReport() {
        let counts = counts.withLock { $0 }
        guard !counts.isEmpty else { return }
        var report = "Database connections that failed in this run, by error (tests that stop a database make some):\n"
        for (error, count) in counts.sorted(by: { $0.value > $1.value }) { report += "  \(count)× \(error)\n" }
        FileHandle.standardError.write(Data(report.utf8))
    }
}

/// A log handler that hands each event at `logLevel` or above to `body`: for the suite's own uses of
/// what is logged (the tally above, a test that checks a line was logged).
public struct EventLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let body: @Sendable (LogEvent) -> Void

    public init(logLevel: Logger.Level = .trace, _ body: @escaping @Sendable (LogEvent) -> Void) {
        self.logLevel = logLevel
        self.body = body
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) { body(event) }
}

extension ConnectFailureTally {
    /// Counts the pool's connect failures whatever level the suite logs at.
    static var logHandler: EventLogHandler {
        EventLogHandler(logLevel: .warning) { event in
            switch event.message.description {
            case slowConnectMessage: record(slowConnectMessage)
            case message: record(event.metadata?["error"].map { "\($0)" } ?? "(no error given)")
            default: break
            }
        }
    }
}
