import Logging
import Metrics
import ServiceLifecycle

/// Keeps the embedded cluster running while the server runs. When its postmaster exits (killed,
/// crashed, out of memory) the supervisor starts it again, with backoff, and PostgreSQL's own
/// crash recovery brings back every committed write. Meanwhile requests answer 503 (the stores'
/// connection deadline) and held polls keep holding; the pool and the change listener reconnect
/// by themselves once the database is back.
///
/// `/metrics` carries `familysync_embedded_database_up` (1 or 0) and
/// `familysync_embedded_database_restarts_total`.
public struct EmbeddedDatabaseSupervisor: Service {
    let database: EmbeddedPostgres
    let logger: Logger
    let checkInterval: Duration
    let initialBackoff: Duration
    let maximumBackoff: Duration

    public init(
        database: EmbeddedPostgres, logger: Logger,
        checkInterval: Duration = .milliseconds(250), initialBackoff: Duration = .milliseconds(200), maximumBackoff: Duration = .seconds(5)
    ) {
        self.database = database
        self.logger = logger
        self.checkInterval = checkInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = max(initialBackoff, maximumBackoff)
    }

    public func run() async throws {
        let up = Gauge(label: "familysync_embedded_database_up")
        let restarts = Counter(label: "familysync_embedded_database_restarts_total")
        up.record(1)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: checkInterval)
                guard !Task.isCancelled, !database.isPostmasterAlive else { continue }
                up.record(0)
                logger.error("the embedded database stopped unexpectedly; restarting it", metadata: ["cluster": "\(database.clusterDirectory)"])
                let stopped = ContinuousClock.now
                if await restart() {
                    restarts.increment()
                    up.record(1)
                    logger.notice("embedded database restarted", metadata: [
                        "downtime_ms": "\((ContinuousClock.now - stopped) / .milliseconds(1))",
                    ])
                }
            }
        }
    }

    /// Tries until the cluster runs again (true) or the server shuts down (false). A start can
    /// fail for a while: the dead postmaster's backends hold its shared memory until they notice
    /// and exit.
    private func restart() async -> Bool {
        var backoff = initialBackoff
        while !Task.isCancelled {
            do {
                try await database.restart()
                return true
            } catch {
                guard !Task.isCancelled else { break }
                let delay = backoff * Double.random(in: 0.5...1.0)
                logger.warning("could not restart the embedded database; trying again", metadata: [
                    "error": "\(error)", "retryIn": "\(delay)",
                ])
                try? await Task.sleep(for: delay)
                backoff = min(backoff * 2, maximumBackoff)
            }
        }
        return false
    }
}
