import FamilySyncCore
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// The one LISTEN connection of a server instance (PROTOCOL §6): a dedicated connection, not a
/// pool slot, that receives every writer's `pg_notify` from every instance and hands the notices
/// to the sink. When the connection drops (the database restarted, the network failed) it
/// reconnects with exponential backoff and jitter; a ping every `pingInterval` finds a
/// connection that died silently.
public struct PostgresChangeListener: Service {
    let configuration: PostgresConnection.Configuration
    let sink: any ChangeNoticeSink
    let logger: Logger
    let initialBackoff: Duration
    let maximumBackoff: Duration
    let pingInterval: Duration
    /// `ChangeNoticeChannel.channel` for the polls; `PushOutbox.channel` for the push senders.
    let channel: String

    public init(
        configuration: PostgresConnection.Configuration, sink: any ChangeNoticeSink, logger: Logger,
        initialBackoff: Duration = .milliseconds(100), maximumBackoff: Duration = .seconds(5), pingInterval: Duration = .seconds(30),
        channel: String = ChangeNoticeChannel.channel
    ) {
        self.channel = channel
        self.configuration = configuration
        self.sink = sink
        self.logger = logger
        self.initialBackoff = initialBackoff
        self.maximumBackoff = max(initialBackoff, maximumBackoff)
        self.pingInterval = pingInterval
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var backoff = initialBackoff
            var attempt = 0
            while !Task.isCancelled {
                attempt += 1
                do {
                    try await listenOnce(id: attempt) { backoff = initialBackoff }
                } catch {
                    if Task.isCancelled { break }
                    logger.warning("change listener lost its connection; reconnecting", metadata: [
                        "error": "\(String(reflecting: error))", "retryIn": "\(backoff)",
                    ])
                }
                sink.listenerDidDisconnect()
                // Full jitter, so that instances do not reconnect in step after a database restart.
                let delay = backoff * Double.random(in: 0.5...1.0)
                try? await Task.sleep(for: delay)
                backoff = min(backoff * 2, maximumBackoff)
            }
        }
    }

    private func listenOnce(id: Int, onListening: () -> Void) async throws {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        do {
            try await connection.listen(on: channel) { notifications in
                onListening()
                logger.info("change listener subscribed", metadata: ["channel": "\(channel)"])
                sink.listenerDidConnect()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in notifications {
                            if let notice = ChangeNotice(payload: notification.payload) {
                                sink.deliver(notice)
                            } else {
                                logger.warning("ignoring a malformed change notice", metadata: ["payload": "\(notification.payload)"])
                            }
                        }
                        throw ListenerEnded()
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: pingInterval)
                            try await connection.query("SELECT 1", logger: logger)
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }

    struct ListenerEnded: Error, CustomStringConvertible {
        var description: String { "the notification stream ended" }
    }
}
