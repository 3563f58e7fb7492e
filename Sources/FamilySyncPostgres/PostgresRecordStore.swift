import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Zones, records and their change feeds (PROTOCOL §4–§5). Every write takes the family's change
/// sequence (see schema 0003) in the same transaction, so readers see changes in sequence order
/// with no gaps.
public struct PostgresRecordStore: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger
    /// Whether the hot reads run as named prepared statements (`RowStatement.rows`).
    let preparedStatements: Bool

    /// `outbox`: push on (§12), the outbox rows of each change written with it.
    public init(database: Database, clock: any WallClock, logger: Logger, outbox: PushOutbox? = nil, preparedStatements: Bool = true) {
        self.preparedStatements = preparedStatements
        self.database = database
        self.changeLog = ChangeLog(database: database, logger: logger, outbox: outbox)
        self.clock = clock
        self.logger = logger
    }

    // MARK: - Zones

    /// The live zones the caller sees.
    public func zones(for access: ZoneAccess) async throws -> [Zone] {
        let familyID = access.caller.familyID
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            try await ZoneRows.all(familyID, on: connection, logger: logger)
                .filter { !$0.deleted && access.canRead($0) }
        }
    }

    public func createZone(familyID: UUID, name: String) async throws -> Zone {
        let now = clock.now()
        return try await changeLog.write(family: familyID) { family in
            try await family.createZone(name, now: now)
        }
    }

    /// Deletes a zone and its records; the zone stays as a tombstone for the database change feed.
    public func deleteZone(familyID: UUID, name: String) async throws {
        let now = clock.now()
        let logger = logger
        try await changeLog.write(family: familyID) { family in
            // Under the family's lock: a confirmation cannot slip in after the check below.
            let zone = try await family.zone(name)
            var ownerStatus: DeviceStatus?
            if let child = zone.childDeviceID {
                ownerStatus = try await family.connection.rows(
                    "SELECT status FROM devices WHERE family_id = \(familyID) AND device_id = \(child)", logger: logger
                ).decode(String.self).first { _ in true }.flatMap(DeviceStatus.init(rawValue:))
            }
            try zone.checkDeletable(ownerStatus: ownerStatus)
            try await family.tombstoneZone(name, now: now)
        }
    }

    // MARK: - Modify

    public enum Result: Sendable {
        case saved(Record, outcome: WriteOutcome, incomingWon: Bool)
        case failed(recordName: String, error: FamilySyncError, serverRecord: Record?)
    }

    /// Applies the operations in one transaction. With `atomic`, the first failure fails them all
    /// (and is thrown); without, each stands alone. Returns the results and the zone's sequence after.
    public func modify(
        access: ZoneAccess, zoneName: String, operations: [RecordWrite], atomic: Bool
    ) async throws -> (results: [Result], zone: Zone, sequence: Int64) {
        let caller = access.caller
        let now = clock.now()
        let logger = logger
        return try await changeLog.write(family: caller.familyID) { family in
            let connection = family.connection
            var zone = try await family.zone(zoneName)
            guard access.canRead(zone) else {
                throw FamilySyncError(.zoneNotFound, "No such zone.")
            }
            guard access.canWrite(zone) else {
                throw FamilySyncError(.accessDenied, "This zone is read-only for this device.")
            }
            let kind = ZoneAccess.kind(of: zone)
            let names = operations.map(\.recordName)
            var stored: [String: Record] = [:]
            let rows = try await connection.rows(
                "SELECT \(unescaped: RecordRow.columns) FROM records WHERE family_id = \(caller.familyID) AND zone_name = \(zoneName) AND record_name = ANY(\(names)) FOR UPDATE",
                logger: logger
            )
            for record in try rows.map(RecordRow.decode) { stored[record.recordName] = record }

            // Decide every operation first; write only what stands.
            var planned: [(index: Int, record: Record, outcome: WriteOutcome, incomingWon: Bool)] = []
            var results: [Result?] = Array(repeating: nil, count: operations.count)
            for (index, operation) in operations.enumerated() {
                do {
                    let decision = try WriteDecision.decide(operation, stored: stored[operation.recordName], caller: caller, zoneKind: kind, now: now)
                    planned.append((index, decision.record, decision.outcome, decision.incomingWon))
                } catch let failure as WriteDecision.Failure {
                    if atomic { throw failure.error }
                    results[index] = .failed(recordName: operation.recordName, error: failure.error, serverRecord: failure.serverRecord)
                }
            }
            // A family's own categories need their record (§9.1). Without atomic, only the
            // operation at fault fails.
            if atomic {
                try await family.checkCategories(of: planned.map(\.record)) { "operations[\(planned[$0].index)].record.fields" }
            } else {
                for plan in planned {
                    do {
                        try await family.checkCategories(of: [plan.record]) { _ in "operations[\(plan.index)].record.fields" }
                    } catch let refused as FamilySyncError {
                        results[plan.index] = .failed(recordName: plan.record.recordName, error: refused, serverRecord: nil)
                        planned.removeAll { $0.index == plan.index }
                    }
                }
            }
            // Types with a limit a zone (100 budgets a member): creations past it are refused.
            for (type, created) in Dictionary(grouping: planned.filter { $0.outcome == .created }, by: \.record.recordType) {
                guard let maximum = RecordTypeRegistry.types[type]?.maximumPerZone else { continue }
                let live = try await connection.rows(
                    "SELECT count(*)::int FROM records WHERE family_id = \(caller.familyID) AND zone_name = \(zoneName) AND record_type = \(type) AND NOT deleted",
                    logger: logger
                ).decode(Int.self).first { _ in true } ?? 0
                let room = max(0, maximum - live)
                guard created.count > room else { continue }
                let refused = FamilySyncError.limitExceeded("A zone holds at most \(maximum) \(type) records.")
                if atomic { throw refused }
                for plan in created.dropFirst(room) {
                    results[plan.index] = .failed(recordName: plan.record.recordName, error: refused, serverRecord: nil)
                    planned.removeAll { $0.index == plan.index }
                }
            }
            var sequence = family.sequenceAtLock
            if !planned.isEmpty {
                let commit = try await family.commit(planned.map(\.record), into: zoneName)
                let last = commit.sequence
                for (plan, record) in zip(planned, commit.records) {
                    results[plan.index] = .saved(record, outcome: plan.outcome, incomingWon: plan.incomingWon)
                }
                sequence = last
                zone.changedSequence = sequence
            }
            return (results.map { $0! }, zone, sequence)
        }
    }

    // MARK: - Reads

    /// Live records by name; a name that is not there (or deleted) is nil.
    public func lookup(access: ZoneAccess, zoneName: String, names: [String]) async throws -> [Record?] {
        let familyID = access.caller.familyID
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            let zone = try await ZoneRows.zone(familyID, zoneName, on: connection, logger: logger)
            guard access.canRead(zone) else {
                throw FamilySyncError(.zoneNotFound, "No such zone.")
            }
            let rows = try await connection.rows(
                "SELECT \(unescaped: RecordRow.columns) FROM records WHERE family_id = \(familyID) AND zone_name = \(zoneName) AND record_name = ANY(\(names)) AND NOT deleted",
                logger: logger
            )
            var found: [String: Record] = [:]
            for record in try rows.map(RecordRow.decode) { found[record.recordName] = record }
            return names.map { found[$0] }
        }
    }

    public struct ZoneChanges: Sendable {
        public var records: [FeedRecord]
        public var zone: Zone
        /// What the returned token stands for.
        public var sequence: Int64
        public var moreComing: Bool
    }

    /// Changes of a zone after `since` (nil: every live record), oldest change first, at most `limit`.
    public func zoneChanges(access: ZoneAccess, zoneName: String, since: ChangeToken?, limit: Int) async throws -> ZoneChanges {
        let (logger, prepared) = (logger, preparedStatements)
        return try await database.leasing { connection in
            try await Self.zoneChanges(access: access, zoneName: zoneName, since: since, limit: limit, on: connection, prepared: prepared, logger: logger)
        }
    }

    /// The family's position, the zone and the page of its records in one statement
    /// (`ZoneChangesStatement`), which is one snapshot: the sequence returned covers exactly what
    /// was read, with no transaction to open and close ("nothing new" is one round trip). The
    /// checks come after the read; a page read for a zone the caller may not see is dropped unseen.
    static func zoneChanges(
        access: ZoneAccess, zoneName: String, since: ChangeToken?, limit: Int, on connection: PostgresConnection, prepared: Bool, logger: Logger
    ) async throws -> ZoneChanges {
        let after = since?.sequence ?? -1
        let statement = ZoneChangesStatement(familyID: access.caller.familyID, zoneName: zoneName, after: after, liveOnly: since == nil, limit: limit + 1)
        var family: ChangeLogPosition?
        var zone: Zone?
        var page: [(record: FeedRecord, sequence: Int64)] = []
        page.reserveCapacity(min(limit + 1, 1024))
        try await statement.forEachRow(on: connection, prepared: prepared, logger: logger) { row in
            // By position (the statement's column order), not by name: a page is up to a
            // thousand rows of nineteen columns.
            let cells = row.makeRandomAccess()
            if family == nil {
                family = ChangeLogPosition(sequence: try cells[0].decode(Int64.self), horizon: try cells[1].decode(Int64.self))
                if try cells[2].decode(Bool.self) {
                    zone = Zone(
                        name: zoneName, childDeviceID: try cells[3].decode(UUID?.self), memberID: try cells[4].decode(UUID?.self),
                        incarnation: try cells[5].decode(UUID.self), changedSequence: try cells[6].decode(Int64.self), deleted: false
                    )
                }
            }
            if let sequence = try cells[ZoneChangesStatement.sequenceColumn].decode(Int64?.self) {
                page.append((try ZoneChangesStatement.record(cells), sequence))
            }
        }
        guard let family else { throw FamilySyncError.notFound("No such family.") }
        guard let zone, access.canRead(zone) else {
            throw FamilySyncError(.zoneNotFound, "No such zone.")
        }
        if let since {
            guard since.scope == .zone(name: zoneName, incarnation: zone.incarnation) else {
                throw FamilySyncError(.badChangeToken, "The change token belongs to another zone.", field: "since")
            }
            try family.checkZoneToken(since.sequence)
        }
        let moreComing = page.count > limit
        if moreComing { page.removeLast() }
        let last = page.last?.sequence ?? after
        return ZoneChanges(records: page.map(\.record), zone: zone, sequence: moreComing ? last : family.sequence, moreComing: moreComing)
    }

    /// The failures that belong to one zone of a multi-zone fetch; anything else fails the request.
    static let zoneFailures: Set<FamilySyncError.Code> = [.zoneNotFound, .badChangeToken, .changeTokenExpired]

    /// A page of each zone asked (§5.5's multi-zone fetch), every one read in the same snapshot, so
    /// that all the tokens stand for one moment. Each page keeps to `limit`, and all of them to
    /// `total`: zones are read in the order asked, each leaving room for one record of every zone
    /// after it, so that every zone gets a real page with a token for what it returned (a zone
    /// read from the start has no token to give for a page it never read). A zone the caller may
    /// not read, or whose token is wrong or expired, fails alone; the others are read all the same.
    public func zoneChanges(
        access: ZoneAccess, zones: [(zoneName: String, since: ChangeToken?)], limit: Int, total: Int
    ) async throws -> [Swift.Result<ZoneChanges, FamilySyncError>] {
        let (logger, prepared) = (logger, preparedStatements)
        return try await database.inSnapshot(logger: logger) { connection in
            var results: [Swift.Result<ZoneChanges, FamilySyncError>] = []
            var room = total
            for (index, zone) in zones.enumerated() {
                let pageLimit = max(1, min(limit, room - (zones.count - index - 1)))
                do {
                    let changes = try await Self.zoneChanges(
                        access: access, zoneName: zone.zoneName, since: zone.since, limit: pageLimit, on: connection, prepared: prepared, logger: logger
                    )
                    room -= changes.records.count
                    results.append(.success(changes))
                } catch let failure as FamilySyncError where Self.zoneFailures.contains(failure.code) {
                    results.append(.failure(failure))
                }
            }
            return results
        }
    }

    public struct DatabaseChanges: Sendable {
        public var zones: [Zone]
        public var sequence: Int64
        public var moreComing: Bool
    }

    /// Zones the caller sees that changed (or were deleted) after `since`.
    public func databaseChanges(access: ZoneAccess, since: ChangeToken?, limit: Int) async throws -> DatabaseChanges {
        // A device awaiting confirmation has an empty database until a parent confirms it.
        guard access.caller.status == .active else {
            return DatabaseChanges(zones: [], sequence: since?.sequence ?? 0, moreComing: false)
        }
        let familyID = access.caller.familyID
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            let family = try await ZoneRows.position(of: familyID, on: connection, logger: logger)
            if let since { try family.checkDatabaseToken(since.sequence) }
            let after = since?.sequence ?? -1
            let visible = try await ZoneRows.all(familyID, on: connection, logger: logger)
                .filter { $0.changedSequence > after && (access.canRead($0) || ($0.deleted && access.isParent)) }
                .filter { since != nil || !$0.deleted }
                .sorted { ($0.changedSequence, $0.name) < ($1.changedSequence, $1.name) }
            let page = Array(visible.prefix(limit))
            let moreComing = visible.count > limit
            return DatabaseChanges(zones: page, sequence: moreComing ? page.last!.changedSequence : family.sequence, moreComing: moreComing)
        }
    }

    // MARK: - Tombstones

    /// Deletes record and zone tombstones older than `cutoff`, family by family, in batches of at
    /// most `batchSize` records a transaction (short locks), and raises each family's horizon so
    /// that tokens that might have missed them answer 410. Returns the number of tombstones removed.
    @discardableResult
    public func purgeTombstones(olderThan cutoff: Date, batchSize: Int = 1000) async throws -> Int {
        let logger = logger
        var removed = 0
        while true {
            let families = try await database.rows(
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
                removed += try await purgeTombstones(of: familyID, olderThan: cutoff, batchSize: batchSize)
            }
        }
    }

    private func purgeTombstones(of familyID: UUID, olderThan cutoff: Date, batchSize: Int) async throws -> Int {
        let logger = logger
        do {
            return try await changeLog.write(family: familyID) { family in
                let connection = family.connection
                let records = try await connection.rows(
                    """
                    WITH doomed AS (
                        SELECT zone_name, record_name FROM records
                        WHERE family_id = \(familyID) AND deleted AND modified_at < \(cutoff) LIMIT \(batchSize)
                    ), gone AS (
                        DELETE FROM records r USING doomed d
                        WHERE r.family_id = \(familyID) AND r.zone_name = d.zone_name AND r.record_name = d.record_name
                        RETURNING r.seq
                    )
                    SELECT count(*)::int, coalesce(max(seq), 0) FROM gone
                    """,
                    logger: logger
                ).decode((Int, Int64).self).first { _ in true } ?? (0, Int64(0))
                let zones = try await connection.rows(
                    """
                    WITH gone AS (
                        DELETE FROM zones WHERE family_id = \(familyID) AND deleted_at < \(cutoff) RETURNING changed_seq
                    )
                    SELECT count(*)::int, coalesce(max(changed_seq), 0) FROM gone
                    """,
                    logger: logger
                ).decode((Int, Int64).self).first { _ in true } ?? (0, Int64(0))
                try await connection.rows(
                    "UPDATE families SET horizon_seq = greatest(horizon_seq, \(max(records.1, zones.1))) WHERE family_id = \(familyID)",
                    logger: logger
                )
                return records.0 + zones.0
            }
        } catch let error as FamilySyncError where error.code == .notFound {
            return 0  // deleted meanwhile, its tombstones with it
        }
    }
}

extension PostgresRecordStore {
    /// A record as stored, tombstone included; for tests and tools, not for clients.
    public func lookupIncludingDeleted(familyID: UUID, zoneName: String, name: String) async throws -> Record? {
        try await database.rows(
            "SELECT \(unescaped: RecordRow.columns) FROM records WHERE family_id = \(familyID) AND zone_name = \(zoneName) AND record_name = \(name)",
            logger: logger
        ).map(RecordRow.decode).first
    }
}
