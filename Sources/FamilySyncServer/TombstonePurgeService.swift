import FamilySyncCore
import FamilySyncPostgres
import Foundation
import Logging
import ServiceLifecycle

/// Purges tombstones older than the horizon (PROTOCOL §5.5, default 30 days) every `interval`,
/// until the server shuts down. A failed round is logged and tried again next time: the job never
/// ends the service group.
struct TombstonePurgeService: Service {
    let records: PostgresRecordStore
    let clock: any WallClock
    let horizon: TimeInterval
    let interval: Duration
    let logger: Logger

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
            let removed = try await records.purgeTombstones(olderThan: clock.now().addingTimeInterval(-horizon))
            if removed > 0 { logger.info("purged tombstones", metadata: ["count": "\(removed)"]) }
        } catch {
            logger.warning("tombstone purge failed; retrying next round", metadata: ["error": "\(DatabaseErrorTranslation.describeForOperator(error))"])
        }
    }
}
