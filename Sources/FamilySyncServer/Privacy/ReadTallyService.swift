import FamilySyncCore
import FamilySyncPostgres
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Flushes a `ReadTally` every `interval`, and once more when the server stops.
struct ReadTallyService: Service {
    let tally: ReadTally
    let audit: PostgresAuditStore
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            await flush()
        }
    }

    func flush() async {
        let taken = tally.take()
        guard !taken.isEmpty else { return }
        do {
            try await audit.addReads(taken)
        } catch {
            tally.restore(taken)
            logger.warning("Parents' read counts were not written; retrying next round", metadata: ["error": "\(DatabaseErrorTranslation.describeForOperator(error))"])
        }
    }
}

extension ServerDependencies {
    /// Writes the reads counted so far, as the 30-second job does: for tests and harnesses.
    public func flushReadCounts() async {
        await ReadTallyService(tally: readTally, audit: audit, interval: .seconds(30), logger: logger).flush()
    }
}
