import FamilySyncPostgres
import FamilySyncServer
import Logging
import ServiceLifecycle

/// A maintenance job run every `interval` until the server shuts down: the tombstone purge
/// (PROTOCOL §5.5) and retention (§15.1). A failed round is logged and tried again next time:
/// a job never ends the service group.
struct PeriodicJobService: Service {
    /// For the log: "purged tombstones", "expired records and rows past retention".
    let name: String
    let interval: Duration
    let logger: Logger
    /// One round; returns how many rows it removed.
    let job: @Sendable () async throws -> Int

    func run() async throws {
        // The first round waits an interval too: the server migrates while services start.
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            if Task.isCancelled || Task.isShuttingDownGracefully { return }
            await runOnce()
        }
    }

    func runOnce() async {
        do {
            let count = try await job()
            if count > 0 { logger.info("\(name)", metadata: ["count": "\(count)"]) }
        } catch {
            logger.warning("\(name): the round failed; retrying next round", metadata: ["error": "\(DatabaseErrorTranslation.describeForOperator(error))"])
        }
    }
}
