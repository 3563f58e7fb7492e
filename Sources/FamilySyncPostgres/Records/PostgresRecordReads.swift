import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The reads of records (PROTOCOL §5.3, §5.5): records by name, the change feeds (and queries,
/// `RecordQuery`). None runs in a write transaction: each is one statement or one snapshot.
public struct PostgresRecordReads: Sendable {
    let database: Database
    let logger: Logger
    /// Whether the hot reads run as named prepared statements (`RowStatement.rows`).
    let preparedStatements: Bool

    public init(changeLog: ChangeLog, logger: Logger, preparedStatements: Bool = true) {
        self.database = changeLog.database
        self.logger = logger
        self.preparedStatements = preparedStatements
    }

    /// Live records by name; a name that is not there (or deleted) is nil.
    public func lookup(access: ZoneAccess, zoneName: String, names: [String]) async throws -> [Record?] {
        let familyID = access.caller.familyID
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            try access.checkRead(try await ZoneRows.zone(familyID, zoneName, on: connection, logger: logger))
            let rows = try await connection.rows(
                "SELECT \(unescaped: RecordRow.columns) FROM records WHERE family_id = \(familyID) AND zone_name = \(zoneName) AND record_name = ANY(\(names)) AND NOT deleted",
                logger: logger
            )
            var found: [String: Record] = [:]
            for record in try rows.map(RecordRow.decode) { found[record.recordName] = record }
            return names.map { found[$0] }
        }
    }

    /// A record as stored, tombstone included; for tests and tools, not for clients.
    public func lookupIncludingDeleted(familyID: UUID, zoneName: String, name: String) async throws -> Record? {
        try await database.rows(
            "SELECT \(unescaped: RecordRow.columns) FROM records WHERE family_id = \(familyID) AND zone_name = \(zoneName) AND record_name = \(name)",
            logger: logger
        ).map(RecordRow.decode).first
    }

    // MARK: - Change feeds

    /// Changes of a zone after `since` (nil: every live record), oldest change first, at most `limit`.
    public func zoneChanges(access: ZoneAccess, zoneName: String, since: ChangeToken?, limit: Int) async throws -> ZoneChangePage<FeedRecord<ByteBuffer>> {
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
    ) async throws -> ZoneChangePage<FeedRecord<ByteBuffer>> {
        let after = since?.sequence ?? -1
        let statement = ZoneChangesStatement(familyID: access.caller.familyID, zoneName: zoneName, after: after, liveOnly: since == nil, limit: limit + 1)
        var family: ChangeLogPosition?
        var zone: Zone?
        var read: [(item: FeedRecord<ByteBuffer>, sequence: Int64)] = []
        read.reserveCapacity(min(limit + 1, 1024))
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
                read.append((try ZoneChangesStatement.record(cells), sequence))
            }
        }
        guard let family else { throw FamilySyncError.notFound("No such family.") }
        let readable = try access.checkRead(zone)
        if let since { try ChangePages.checkZoneToken(since, of: readable, position: family) }
        let page = ChangePages.zonePage(read, limit: limit, after: after, position: family)
        return ZoneChangePage(records: page.items, zone: readable, sequence: page.sequence, moreComing: page.moreComing)
    }

    /// A page of each zone asked (§5.5's multi-zone fetch), every one read in the same snapshot, so
    /// that all the tokens stand for one moment. Each page keeps to `limit`, and all of them to
    /// `total` (`ChangePages.pageLimit`). A zone the caller may not read, or whose token is wrong or
    /// expired, fails alone; the others are read all the same.
    public func zoneChanges(
        access: ZoneAccess, zones: [(zoneName: String, since: ChangeToken?)], limit: Int, total: Int
    ) async throws -> [Swift.Result<ZoneChangePage<FeedRecord<ByteBuffer>>, FamilySyncError>] {
        let (logger, prepared) = (logger, preparedStatements)
        return try await database.inSnapshot(logger: logger) { connection in
            var results: [Swift.Result<ZoneChangePage<FeedRecord<ByteBuffer>>, FamilySyncError>] = []
            var room = total
            for (index, zone) in zones.enumerated() {
                let pageLimit = ChangePages.pageLimit(zoneAt: index, of: zones.count, limit: limit, room: room)
                do {
                    let changes = try await Self.zoneChanges(
                        access: access, zoneName: zone.zoneName, since: zone.since, limit: pageLimit, on: connection, prepared: prepared, logger: logger
                    )
                    room -= changes.records.count
                    results.append(.success(changes))
                } catch let failure as FamilySyncError where ChangePages.zoneFailures.contains(failure.code) {
                    results.append(.failure(failure))
                }
            }
            return results
        }
    }

    /// Zones the caller sees that changed (or were deleted) after `since`.
    public func databaseChanges(access: ZoneAccess, since: ChangeToken?, limit: Int) async throws -> ChangePages.DatabasePage {
        if let empty = ChangePages.emptyDatabase(for: access, since: since) { return empty }
        let familyID = access.caller.familyID
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            let position = try await ZoneRows.position(of: familyID, on: connection, logger: logger)
            let zones = try await ZoneRows.all(familyID, on: connection, logger: logger)
            return try ChangePages.databasePage(of: zones, for: access, since: since, limit: limit, position: position)
        }
    }
}
