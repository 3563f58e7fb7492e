import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Zones, records and their change feeds (PROTOCOL §4–§5). Every write takes the family's change
/// sequence (see schema 0003) in the same transaction, so readers see changes in sequence order
/// with no gaps.
public struct PostgresRecordStore: Sendable {
    let client: PostgresClient
    let clock: any WallClock
    let logger: Logger

    public init(client: PostgresClient, clock: any WallClock, logger: Logger) {
        self.client = client
        self.clock = clock
        self.logger = logger
    }

    public struct Zone: Sendable, Equatable {
        public var name: String
        public var childDeviceID: UUID?
        public var incarnation: UUID
        public var changedSequence: Int64
        public var deleted: Bool
    }

    // MARK: - Zones

    /// The live zones the caller sees.
    public func zones(for access: ZoneAccess) async throws -> [Zone] {
        let familyID = access.caller.familyID
        let logger = logger
        return try await client.inSnapshot(logger: logger) { connection in
            try await Self.allZones(familyID, on: connection, logger: logger)
                .filter { !$0.deleted && access.canRead(zone: $0.name, childDeviceID: $0.childDeviceID) }
        }
    }

    public func createZone(familyID: UUID, name: String) async throws -> Zone {
        let now = clock.now()
        let logger = logger
        return try await client.inTransaction(logger: logger) { connection in
            let sequence = try await Self.advance(familyID, by: 1, on: connection, logger: logger)
            let rows = try await connection.query(
                """
                INSERT INTO zones (family_id, zone_name, child_device_id, created_at, incarnation, changed_seq)
                VALUES (\(familyID), \(name), NULL, \(now), gen_random_uuid(), \(sequence))
                ON CONFLICT (family_id, zone_name) DO UPDATE
                    SET deleted_at = NULL, incarnation = gen_random_uuid(), changed_seq = EXCLUDED.changed_seq, created_at = EXCLUDED.created_at
                    WHERE zones.deleted_at IS NOT NULL
                RETURNING incarnation
                """,
                logger: logger
            )
            guard let incarnation = try await rows.decode(UUID.self).first(where: { _ in true }) else {
                throw FamilySyncError(.exists, "A zone named '\(name)' exists.")
            }
            try await ChangePublisher.publish([.zone(name, of: familyID)], on: connection, logger: logger)
            return Zone(name: name, childDeviceID: nil, incarnation: incarnation, changedSequence: sequence, deleted: false)
        }
    }

    /// Deletes a zone and its records; the zone stays as a tombstone for the database change feed.
    public func deleteZone(familyID: UUID, name: String) async throws {
        let logger = logger
        try await client.inTransaction(logger: logger) { connection in
            // The family first, as every writer: a confirmation cannot slip in after the check below.
            _ = try await Self.lockFamily(familyID, on: connection, logger: logger)
            let zone = try await Self.zone(familyID, name, on: connection, logger: logger)
            if let child = zone.childDeviceID {
                let status = try await connection.query(
                    "SELECT status FROM devices WHERE family_id = \(familyID) AND device_id = \(child)", logger: logger
                ).decode(String.self).first { _ in true }
                if status == DeviceStatus.active.rawValue {
                    throw FamilySyncError(.conflict, "This is the zone of an active child device; revoke the device first.")
                }
            }
            try await Self.tombstoneZone(familyID, name, now: clock.now(), on: connection, logger: logger)
        }
    }

    static func tombstoneZone(_ familyID: UUID, _ name: String, now: Date, on connection: PostgresConnection, logger: Logger) async throws {
        let sequence = try await advance(familyID, by: 1, on: connection, logger: logger)
        try await connection.query("DELETE FROM records WHERE family_id = \(familyID) AND zone_name = \(name)", logger: logger)
        try await connection.query(
            "UPDATE zones SET deleted_at = \(now), changed_seq = \(sequence) WHERE family_id = \(familyID) AND zone_name = \(name)",
            logger: logger
        )
        try await ChangePublisher.publish([.zone(name, of: familyID)], on: connection, logger: logger)
    }

    // MARK: - Modify

    public struct Operation: Sendable {
        public var type: RecordOperationType
        public var recordName: String
        public var recordType: String?
        public var fields: [String: JSONValue]?
        public var changeTag: String?
        public var clientModifiedAt: Date?
        /// Where the operation sits in the request, for `field` paths: `operations[3]`.
        public var path: String

        public init(type: RecordOperationType, recordName: String, recordType: String?, fields: [String: JSONValue]?, changeTag: String?, clientModifiedAt: Date?, path: String) {
            self.type = type
            self.recordName = recordName
            self.recordType = recordType
            self.fields = fields
            self.changeTag = changeTag
            self.clientModifiedAt = clientModifiedAt
            self.path = path
        }
    }

    public enum Result: Sendable {
        case saved(Record, outcome: String, incomingWon: Bool)
        case failed(recordName: String, error: FamilySyncError, serverRecord: Record?)
    }

    /// Applies the operations in one transaction. With `atomic`, the first failure fails them all
    /// (and is thrown); without, each stands alone. Returns the results and the zone's sequence after.
    public func modify(
        access: ZoneAccess, zoneName: String, operations: [Operation], atomic: Bool
    ) async throws -> (results: [Result], zone: Zone, sequence: Int64) {
        let caller = access.caller
        let now = clock.now()
        let logger = logger
        return try await client.inTransaction(logger: logger) { connection in
            // The family's row lock first, before any record is locked: every writer takes the locks
            // in this order, so two writers of a family queue instead of deadlocking.
            let current = try await Self.lockFamily(caller.familyID, on: connection, logger: logger)
            var zone = try await Self.zone(caller.familyID, zoneName, on: connection, logger: logger)
            guard access.canRead(zone: zone.name, childDeviceID: zone.childDeviceID) else {
                throw FamilySyncError(.zoneNotFound, "No such zone.")
            }
            guard access.canWrite(zone: zone.name, childDeviceID: zone.childDeviceID) else {
                throw FamilySyncError(.accessDenied, "This zone is read-only for this device.")
            }
            let kind = ZoneAccess.kind(of: zone.name, childDeviceID: zone.childDeviceID)
            let names = operations.map(\.recordName)
            var stored: [String: Record] = [:]
            let rows = try await connection.query(
                "SELECT \(unescaped: RecordRow.columns) FROM records WHERE family_id = \(caller.familyID) AND zone_name = \(zoneName) AND record_name = ANY(\(names)) FOR UPDATE",
                logger: logger
            )
            for record in try await rows.collect(RecordRow.decode) { stored[record.recordName] = record }

            // Decide every operation first; write only what stands.
            var planned: [(index: Int, record: Record, outcome: String, incomingWon: Bool)] = []
            var results: [Result?] = Array(repeating: nil, count: operations.count)
            for (index, operation) in operations.enumerated() {
                do {
                    let decision = try Self.decide(operation, stored: stored[operation.recordName], caller: caller, zoneKind: kind, now: now)
                    planned.append((index, decision.record, decision.outcome, decision.incomingWon))
                } catch let failure as RecordFailure {
                    if atomic { throw failure.error }
                    results[index] = .failed(recordName: operation.recordName, error: failure.error, serverRecord: failure.serverRecord)
                }
            }
            var sequence = current
            if !planned.isEmpty {
                let (written, last) = try await Self.commit(planned.map(\.record), familyID: caller.familyID, zoneName: zoneName, on: connection, logger: logger)
                for (plan, record) in zip(planned, written) {
                    results[plan.index] = .saved(record, outcome: plan.outcome, incomingWon: plan.incomingWon)
                }
                sequence = last
                zone.changedSequence = sequence
            }
            return (results.map { $0! }, zone, sequence)
        }
    }

    struct RecordFailure: Error {
        var error: FamilySyncError
        var serverRecord: Record?
    }

    /// What one operation does to the stored record, per PROTOCOL §5.3–§5.4. Pure.
    static func decide(
        _ operation: Operation, stored: Record?, caller: AuthenticatedDevice, zoneKind: RecordSchema.ZoneKind, now: Date
    ) throws(RecordFailure) -> (record: Record, outcome: String, incomingWon: Bool) {
        func fail(_ error: FamilySyncError, _ server: Record? = nil) -> RecordFailure { RecordFailure(error: error, serverRecord: server) }
        let path = operation.path
        let live = stored.flatMap { $0.deleted ? nil : $0 }
        let type = operation.recordType ?? stored?.recordType
        guard let type else {
            throw fail(.badRequest("recordType is required.", field: "\(path).record.recordType"))
        }
        if let stored, let given = operation.recordType, given != stored.recordType {
            throw fail(.badRequest("The record is a \(stored.recordType), not a \(given).", field: "\(path).record.recordType"))
        }
        do {
            try RecordSchema.checkWrite(type: type, zone: zoneKind, role: caller.role, field: "\(path).record.recordType")
        } catch {
            throw fail(error)
        }
        if operation.type.needsChangeTag, operation.changeTag == nil {
            throw fail(.badRequest("\(operation.type.rawValue) needs the record's recordChangeTag.", field: "\(path).record.recordChangeTag"))
        }
        let stamp = ConflictResolver.clamp(
            WriteStamp(clientModifiedAt: operation.clientModifiedAt ?? now, role: caller.role, deviceID: caller.deviceID), serverNow: now
        )

        // Conflicts: a stale tag on a record that exists (or existed: tombstones keep their stamp).
        var incomingWon = false
        switch operation.type {
        case .create:
            if let live { throw fail(FamilySyncError(.exists, "A record named '\(operation.recordName)' exists."), live) }
        case .update, .replace, .delete:
            guard let stored else { throw fail(.notFound("No record named '\(operation.recordName)'.")) }
            if operation.changeTag == stored.changeTag {
                if stored.deleted { throw fail(.notFound("The record '\(operation.recordName)' was deleted.")) }
            } else {
                guard !RecordSchema.isCustom(type), ConflictResolver.incomingWins(incoming: stamp, stored: stored.stamp) else {
                    throw fail(FamilySyncError(.conflict, "The record changed since its tag was read."), stored)
                }
                incomingWon = true
            }
        case .forceUpdate, .forceReplace:
            break
        case .forceDelete:
            if live == nil { throw fail(.notFound("No record named '\(operation.recordName)'.")) }
        }

        var fields: [String: JSONValue]
        if operation.type.isDelete {
            fields = stored?.fields ?? [:]
        } else if operation.type.merges, let base = stored?.fields {
            fields = base
            for (name, value) in operation.fields ?? [:] { fields[name] = value == .null ? nil : value }
        } else {
            fields = (operation.fields ?? [:]).filter { $0.value != .null }
        }
        if !operation.type.isDelete {
            do {
                try RecordSchema.validate(type: type, fields: fields, field: "\(path).record.fields")
            } catch {
                throw fail(error)
            }
            let size = ((try? RecordRow.json(fields)) ?? "").utf8.count
            guard size <= RecordSchema.maximumFieldsBytes else {
                throw fail(.limitExceeded("The record's fields are \(size) bytes; the limit is \(RecordSchema.maximumFieldsBytes).", field: "\(path).record.fields"))
            }
        }
        let isNew = live == nil && !operation.type.isDelete
        let record = Record(
            recordName: operation.recordName, recordType: type, fields: fields, changeTag: "", deleted: operation.type.isDelete,
            createdAt: isNew ? now : stored?.createdAt ?? now, createdBy: isNew ? caller.deviceID : stored?.createdBy ?? caller.deviceID,
            modifiedAt: now, modifiedBy: caller.deviceID, modifiedRole: caller.role.rawValue, clientModifiedAt: stamp.clientModifiedAt
        )
        let outcome = operation.type.isDelete ? "deleted" : (isNew ? "created" : "updated")
        return (record, outcome, incomingWon)
    }

    /// Writes records in one statement (one round trip for a whole batch), inserting new ones and
    /// overwriting stored ones and tombstones.
    /// Writes decided records into a zone: takes numbers of the family's sequence, stamps each
    /// record's change tag with its number, advances the zone and tells the polls. Every write of
    /// records goes through here (modify, commands, usage). The family's row lock must be held.
    static func commit(_ records: [Record], familyID: UUID, zoneName: String, on connection: PostgresConnection, logger: Logger) async throws -> (records: [Record], sequence: Int64) {
        let count = Int64(records.count)
        let last = try await advance(familyID, by: count, on: connection, logger: logger)
        let first = last - count + 1
        var written: [(record: Record, sequence: Int64)] = []
        for (offset, record) in records.enumerated() {
            var record = record
            record.changeTag = String(first + Int64(offset), radix: 36)
            written.append((record, first + Int64(offset)))
        }
        try await write(written, familyID: familyID, zoneName: zoneName, on: connection, logger: logger)
        try await connection.query(
            "UPDATE zones SET changed_seq = \(last) WHERE family_id = \(familyID) AND zone_name = \(zoneName)", logger: logger
        )
        try await ChangePublisher.publish([.zone(zoneName, of: familyID)], on: connection, logger: logger)
        return (written.map(\.record), last)
    }

    static func write(_ records: [(record: Record, sequence: Int64)], familyID: UUID, zoneName: String, on connection: PostgresConnection, logger: Logger) async throws {
        let list = records.map(\.record)
        try await connection.query(
            """
            INSERT INTO records (family_id, zone_name, record_name, record_type, fields, change_tag, deleted, created_at, created_by,
                                 modified_at, modified_by, modified_role, client_modified_at, seq)
            SELECT \(familyID), \(zoneName), name, type, body::jsonb, tag, gone, created, creator, modified, modifier, role, client, seq
            FROM unnest(\(list.map(\.recordName))::text[], \(list.map(\.recordType))::text[], \(try list.map { try RecordRow.json($0.fields) })::text[],
                        \(list.map(\.changeTag))::text[], \(list.map(\.deleted))::bool[], \(list.map(\.createdAt))::timestamptz[],
                        \(list.map(\.createdBy))::uuid[], \(list.map(\.modifiedAt))::timestamptz[], \(list.map(\.modifiedBy))::uuid[],
                        \(list.map(\.modifiedRole))::text[], \(list.map(\.clientModifiedAt))::timestamptz[], \(records.map(\.sequence))::bigint[])
                AS u(name, type, body, tag, gone, created, creator, modified, modifier, role, client, seq)
            ON CONFLICT (family_id, zone_name, record_name) DO UPDATE SET
                record_type = EXCLUDED.record_type, fields = EXCLUDED.fields, change_tag = EXCLUDED.change_tag, deleted = EXCLUDED.deleted,
                created_at = EXCLUDED.created_at, created_by = EXCLUDED.created_by, modified_at = EXCLUDED.modified_at,
                modified_by = EXCLUDED.modified_by, modified_role = EXCLUDED.modified_role,
                client_modified_at = EXCLUDED.client_modified_at, seq = EXCLUDED.seq
            """,
            logger: logger
        )
    }

    // MARK: - Reads

    /// Live records by name; a name that is not there (or deleted) is nil.
    public func lookup(access: ZoneAccess, zoneName: String, names: [String]) async throws -> [Record?] {
        let familyID = access.caller.familyID
        let logger = logger
        return try await client.inSnapshot(logger: logger) { connection in
            let zone = try await Self.zone(familyID, zoneName, on: connection, logger: logger)
            guard access.canRead(zone: zone.name, childDeviceID: zone.childDeviceID) else {
                throw FamilySyncError(.zoneNotFound, "No such zone.")
            }
            let rows = try await connection.query(
                "SELECT \(unescaped: RecordRow.columns) FROM records WHERE family_id = \(familyID) AND zone_name = \(zoneName) AND record_name = ANY(\(names)) AND NOT deleted",
                logger: logger
            )
            var found: [String: Record] = [:]
            for record in try await rows.collect(RecordRow.decode) { found[record.recordName] = record }
            return names.map { found[$0] }
        }
    }

    public struct ZoneChanges: Sendable {
        public var records: [Record]
        public var zone: Zone
        /// What the returned token stands for.
        public var sequence: Int64
        public var moreComing: Bool
    }

    /// Changes of a zone after `since` (nil: every live record), oldest change first, at most `limit`.
    /// Read in one snapshot, so the sequence returned covers exactly what was read.
    public func zoneChanges(access: ZoneAccess, zoneName: String, since: ChangeToken?, limit: Int) async throws -> ZoneChanges {
        let familyID = access.caller.familyID
        let logger = logger
        return try await client.inSnapshot(logger: logger) { connection in
            let family = try await Self.familySequence(familyID, on: connection, logger: logger)
            let zone = try await Self.zone(familyID, zoneName, on: connection, logger: logger)
            guard access.canRead(zone: zone.name, childDeviceID: zone.childDeviceID) else {
                throw FamilySyncError(.zoneNotFound, "No such zone.")
            }
            if let since {
                guard since.scope == .zone(name: zoneName, incarnation: zone.incarnation) else {
                    throw FamilySyncError(.badChangeToken, "The change token belongs to another zone.", field: "since")
                }
                guard since.sequence >= family.horizon, since.sequence <= family.sequence else {
                    throw FamilySyncError(.changeTokenExpired, "The change token is older than the tombstone horizon; fetch again without one.")
                }
            }
            let after = since?.sequence ?? -1
            let rows = try await connection.query(
                """
                SELECT \(unescaped: RecordRow.columns), seq FROM records
                WHERE family_id = \(familyID) AND zone_name = \(zoneName) AND seq > \(after) AND (\(since == nil) = false OR NOT deleted)
                ORDER BY seq LIMIT \(limit + 1)
                """,
                logger: logger
            )
            var page: [(record: Record, sequence: Int64)] = []
            for try await row in rows {
                page.append((try RecordRow.decode(row), try row.makeRandomAccess()["seq"].decode(Int64.self)))
            }
            let moreComing = page.count > limit
            if moreComing { page.removeLast() }
            let records = page.map(\.record)
            let last = page.last?.sequence ?? after
            return ZoneChanges(records: records, zone: zone, sequence: moreComing ? last : family.sequence, moreComing: moreComing)
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
        return try await client.inSnapshot(logger: logger) { connection in
            let family = try await Self.familySequence(familyID, on: connection, logger: logger)
            if let since { try Self.checkTokenSequence(since.sequence, family: family) }
            let after = since?.sequence ?? -1
            let visible = try await Self.allZones(familyID, on: connection, logger: logger)
                .filter { $0.changedSequence > after && (access.canRead(zone: $0.name, childDeviceID: $0.childDeviceID) || ($0.deleted && access.isParent)) }
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
            let families = try await client.rows(
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
                removed += try await client.inTransaction(logger: logger) { connection in
                    // The family's row first: the same lock order as every writer.
                    try await connection.query("SELECT 1 FROM families WHERE family_id = \(familyID) FOR UPDATE", logger: logger)
                    let records = try await connection.query(
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
                    let zones = try await connection.query(
                        """
                        WITH gone AS (
                            DELETE FROM zones WHERE family_id = \(familyID) AND deleted_at < \(cutoff) RETURNING changed_seq
                        )
                        SELECT count(*)::int, coalesce(max(changed_seq), 0) FROM gone
                        """,
                        logger: logger
                    ).decode((Int, Int64).self).first { _ in true } ?? (0, Int64(0))
                    try await connection.query(
                        "UPDATE families SET horizon_seq = greatest(horizon_seq, \(max(records.1, zones.1))) WHERE family_id = \(familyID)",
                        logger: logger
                    )
                    return records.0 + zones.0
                }
            }
        }
    }

    // MARK: - Helpers

    /// Takes `count` numbers of the family's change sequence and returns the last; holds the
    /// family's row lock until the transaction ends.
    static func advance(_ familyID: UUID, by count: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            "UPDATE families SET change_seq = change_seq + \(count) WHERE family_id = \(familyID) RETURNING change_seq", logger: logger
        )
        guard let sequence = try await rows.decode(Int64.self).first(where: { _ in true }) else {
            throw FamilySyncError.notFound("No such family.")
        }
        return sequence
    }

    /// Locks the family's row (held to the end of the transaction) and returns its sequence.
    static func lockFamily(_ familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query("SELECT change_seq FROM families WHERE family_id = \(familyID) FOR UPDATE", logger: logger)
        guard let sequence = try await rows.decode(Int64.self).first(where: { _ in true }) else {
            throw FamilySyncError.notFound("No such family.")
        }
        return sequence
    }

    /// A database token's sequence must lie within what the family kept: not before the tombstone
    /// horizon (it may have missed a purged deletion), not after the family's sequence. A token at
    /// 0 has seen nothing (a device awaiting confirmation holds one), so it cannot have missed anything.
    static func checkTokenSequence(_ sequence: Int64, family: (sequence: Int64, horizon: Int64)) throws(FamilySyncError) {
        guard sequence == 0 || sequence >= family.horizon, sequence <= family.sequence else {
            throw FamilySyncError(.changeTokenExpired, "The change token is older than the tombstone horizon; fetch again without one.")
        }
    }

    static func familySequence(_ familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> (sequence: Int64, horizon: Int64) {
        let rows = try await connection.query("SELECT change_seq, horizon_seq FROM families WHERE family_id = \(familyID)", logger: logger)
        guard let values = try await rows.decode((Int64, Int64).self).first(where: { _ in true }) else {
            throw FamilySyncError.notFound("No such family.")
        }
        return values
    }

    static func allZones(_ familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> [Zone] {
        try await connection.query(
            "SELECT zone_name, child_device_id, incarnation, changed_seq, deleted_at IS NOT NULL FROM zones WHERE family_id = \(familyID) ORDER BY zone_name",
            logger: logger
        ).decode((String, UUID?, UUID, Int64, Bool).self).reduce(into: []) {
            $0.append(Zone(name: $1.0, childDeviceID: $1.1, incarnation: $1.2, changedSequence: $1.3, deleted: $1.4))
        }
    }

    static func zone(_ familyID: UUID, _ name: String, on connection: PostgresConnection, logger: Logger) async throws -> Zone {
        let rows = try await connection.query(
            """
            SELECT zone_name, child_device_id, incarnation, changed_seq FROM zones
            WHERE family_id = \(familyID) AND zone_name = \(name) AND deleted_at IS NULL
            """,
            logger: logger
        )
        guard let (zoneName, child, incarnation, changed) = try await rows.decode((String, UUID?, UUID, Int64).self).first(where: { _ in true }) else {
            throw FamilySyncError(.zoneNotFound, "No such zone.")
        }
        return Zone(name: zoneName, childDeviceID: child, incarnation: incarnation, changedSequence: changed, deleted: false)
    }
}

extension PostgresRecordStore {
    /// A record as stored, tombstone included; for tests and tools, not for clients.
    public func lookupIncludingDeleted(familyID: UUID, zoneName: String, name: String) async throws -> Record? {
        try await client.rows(
            "SELECT \(unescaped: RecordRow.columns) FROM records WHERE family_id = \(familyID) AND zone_name = \(zoneName) AND record_name = \(name)",
            logger: logger
        ).map(RecordRow.decode).first
    }
}
