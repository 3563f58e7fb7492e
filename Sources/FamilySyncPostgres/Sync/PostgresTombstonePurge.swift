import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The hourly purge of record and zone tombstones past the horizon (§5.5), a periodic job: each
/// family's horizon rises with it, so that tokens that might have missed a purged deletion
/// answer 410.
public struct PostgresTombstonePurge: Sendable {
    let changeLog: ChangeLog
    let logger: Logger

    public init(changeLog: ChangeLog, logger: Logger) {
        self.changeLog = changeLog
        self.logger = logger
    }

    /// Deletes record and zone tombstones older than `cutoff`, family by family, in batches of at
    /// most `batchSize` records a transaction (short locks). Returns the number of tombstones removed.
    @discardableResult
    public func purge(olderThan cutoff: Date, batchSize: Int = 1000) async throws -> Int {
        let logger = logger
        var removed = 0
        while true {
            let families = try await changeLog.database.rows(
                """
                SELECT DISTINCT family_id FROM (
                    (SELECT family_id FROM records WHERE deleted AND modified_at < \(cutoff) LIMIT 100)
                    UNION ALL (SELECT family_id FROM zones WHERE deleted_at < \(cutoff) LIMIT 100)
                ) f
                """,
                logger: logger
            ).map { try $0.decode(UUID.self) }
            if families.isEmpty { return removed }
            for familyID in families {
                removed += try await purge(of: familyID, olderThan: cutoff, batchSize: batchSize)
            }
        }
    }

    private func purge(of familyID: UUID, olderThan cutoff: Date, batchSize: Int) async throws -> Int {
        do {
            return try await changeLog.write(family: familyID, as: .server) { family in
                try await family.purgeTombstones(olderThan: cutoff, batchSize: batchSize)
            }
        } catch let error as FamilySyncError where error.code == .notFound {
            return 0  // deleted meanwhile, its tombstones with it
        }
    }
}
