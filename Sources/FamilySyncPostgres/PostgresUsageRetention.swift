import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The periodic job of usage retention (§7.2): old sessions and daily totals become tombstones.
public struct PostgresUsageRetention: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.database = changeLog.database
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    /// Deletes usage records whose session ended before `cutoff`, and daily totals (§9.2) of days
    /// that ended before it in every time zone, a zone and at most `batchSize` records a
    /// transaction (short locks, the family's lock first as in every writer). They leave
    /// tombstones with no content, so followers of the zone drop them too; the tombstones go with
    /// the tombstone horizon. Daily summaries stay. Returns how many were deleted.
    @discardableResult
    public func expireUsage(before cutoff: Date, batchSize: Int = 500) async throws -> Int {
        let lastExpiredDay = DailyTotals.lastEndedDate(before: cutoff)
        let sessions = try await expire(type: "UsageRecord", field: "sessionEnd", before: Instant.format(cutoff), batchSize: batchSize)
        return sessions + (try await expire(type: "DailyTotals", field: "date", before: lastExpiredDay, orEqual: true, batchSize: batchSize))
    }

    /// Tombstones the live records of `type` whose text `field` sorts before `bound` (or equal to it).
    private func expire(type: String, field: String, before bound: String, orEqual: Bool = false, batchSize: Int) async throws -> Int {
        let logger = logger
        let now = clock.now()
        // Names from this file, written into the statement so that it matches the expression index.
        let expired = "record_type = '\(type)' AND NOT deleted AND fields ->> '\(field)' \(orEqual ? "<=" : "<") "
        var deleted = 0
        while true {
            let zones = try await database.rows(
                """
                SELECT DISTINCT family_id, zone_name FROM (
                    SELECT family_id, zone_name FROM records WHERE \(unescaped: expired) \(bound) LIMIT 1000
                ) expired
                """,
                logger: logger
            ).map { try $0.decode((UUID, String).self) }
            if zones.isEmpty { return deleted }
            for (familyID, zone) in zones {
                deleted += try await changeLog.write(family: familyID) { family in
                    let rows = try await family.connection.rows(
                        """
                        SELECT \(unescaped: RecordRow.columns) FROM records
                        WHERE family_id = \(familyID) AND zone_name = \(zone) AND \(unescaped: expired) \(bound)
                        ORDER BY fields ->> '\(unescaped: field)' LIMIT \(batchSize) FOR UPDATE
                        """,
                        logger: logger
                    )
                    let tombstones = try rows.map(RecordRow.decode).map { record in
                        var tombstone = record
                        tombstone.deleted = true
                        tombstone.fields = [:]
                        tombstone.modifiedAt = now
                        tombstone.modifiedRole = .server
                        tombstone.clientModifiedAt = now
                        return tombstone
                    }
                    guard !tombstones.isEmpty else { return 0 }
                    try await family.commit(tombstones, into: zone)
                    return tombstones.count
                }
            }
        }
    }
}
