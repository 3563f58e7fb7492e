import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The writes of records (PROTOCOL §5.3): `records/modify`. Every one goes through the change
/// log, so it takes the family's change sequence in its transaction and readers see changes in
/// sequence order with no gaps (schema 0003).
public struct PostgresRecordWrites: Sendable {
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    // MARK: - Modify

    /// Applies the operations in one transaction, as `ModifyPlan` decides them: with `atomic`, the
    /// first failure fails them all (and is thrown); without, each stands alone. Returns the
    /// results and the zone's sequence after. A refusal of one record's fields is named where the
    /// request holds that record (`records`).
    public func modify(
        access: ZoneAccess, zoneName: String, operations: [RecordWrite], atomic: Bool, records: ItemPath, as writer: ChangeWriter
    ) async throws -> (results: [ModifyPlan.Result], zone: Zone, sequence: Int64) {
        let caller = access.caller
        let now = clock.now()
        let logger = logger
        return try await changeLog.write(family: caller.familyID, as: writer) { family in
            let connection = family.connection
            var zone = try await family.zone(zoneName)
            try access.checkWrite(zone)
            let rows = try await connection.rows(
                """
                SELECT \(unescaped: RecordRow.columns) FROM records
                WHERE family_id = \(caller.familyID) AND zone_name = \(zoneName) AND record_name = ANY(\(operations.map(\.recordName))) FOR UPDATE
                """,
                logger: logger
            )
            var stored: [String: Record] = [:]
            for record in try rows.map(RecordRow.decode) { stored[record.recordName] = record }
            var plan = try ModifyPlan(operations, stored: stored, caller: caller, zoneKind: ZoneAccess.kind(of: zone), now: now, atomic: atomic)
            for writes in plan.categoryChecks {
                do {
                    try await family.checkCategories(of: writes.map(\.record)) { records(writes[$0].index, "fields") }
                } catch let refused as FamilySyncError {
                    try plan.refuse(writes, refused)
                }
            }
            for limit in plan.limits {
                let live = try await connection.rows(
                    """
                    SELECT count(*)::int FROM records
                    WHERE family_id = \(caller.familyID) AND zone_name = \(zoneName) AND record_type = \(limit.recordType) AND NOT deleted
                    """,
                    logger: logger
                ).decode(Int.self).first { _ in true } ?? 0
                try plan.apply(limit, live: live)
            }
            guard !plan.standing.isEmpty else {
                return (plan.results(saved: []), zone, family.sequenceAtLock)
            }
            let commit = try await family.commit(plan.standing.map(\.record), into: zoneName)
            zone.changedSequence = commit.sequence
            return (plan.results(saved: commit.records), zone, commit.sequence)
        }
    }
}
