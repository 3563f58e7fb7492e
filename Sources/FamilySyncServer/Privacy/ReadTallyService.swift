import FamilySyncCore
import FamilySyncPostgres
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Flushes a `ReadTally` every `interval`, and once more when the server stops.
package struct ReadTallyService: Service {
    package let tally: ReadTally
    package let audit: PostgresAuditStore
    package let interval: Duration
    package let logger: Logger

    package init(tally: ReadTally, audit: PostgresAuditStore, interval: Duration, logger: Logger) {
        self.tally = tally
        self.audit = audit
        self.interval = interval
        self.logger = logger
    }

    package func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            await flush()
        }
    }

    package func flush() async {
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
