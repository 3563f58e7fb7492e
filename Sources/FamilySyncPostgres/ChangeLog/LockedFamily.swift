import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A family whose row lock this transaction holds: its zones, records, devices and members change
/// only through here. The connection is the module's, not the stores' callers': what is written
/// with it outside the `LockedFamily` files is checked by `OneWritePathTests`.
public struct LockedFamily: Sendable {
    public let id: UUID
    let connection: PostgresConnection
    let logger: Logger
    /// The family's change sequence when the lock was taken.
    public let sequenceAtLock: Int64
    /// What calls for pushes, when push is on and the family has a device registered for them.
    let pendingPushes: PendingPushes?
    let published: PublishedNotices
    /// The zone owners read in this transaction (`owner(of:)`): under the lock they cannot change.
    let owners = ZoneOwners()
    /// The transaction that creates the family: everything it makes is the family's change 1
    /// (schema 0004), and nobody can hold a poll on it yet.
    var creating = false
    /// Whether committed rules go in the audit log: not for what the retention job removes.
    var auditing = true
    /// Who the audit entries of this transaction's changes name (`ChangeWriter`).
    var actor = AuditActor.server

    /// Reads, with the lock, whether any device of the family has a push registration: a family
    /// with none writes no outbox rows and spends no statement on them.
    static func lock(
        _ familyID: UUID, on connection: PostgresConnection, logger: Logger, outbox: PushOutbox? = nil, published: PublishedNotices = PublishedNotices()
    ) async throws -> LockedFamily {
        let rows = try await connection.rows(
            """
            SELECT change_seq, \(outbox != nil) AND EXISTS (SELECT 1 FROM device_push_tokens WHERE family_id = \(familyID))
            FROM families WHERE family_id = \(familyID) FOR UPDATE
            """,
            logger: logger
        )
        guard let (sequence, pushes) = try rows.decode((Int64, Bool).self).first else {
            throw FamilySyncError.notFound("No such family.")
        }
        let pending = pushes ? outbox.map(PendingPushes.init) : nil
        return LockedFamily(id: familyID, connection: connection, logger: logger, sequenceAtLock: sequence, pendingPushes: pending, published: published)
    }

    /// Takes `count` numbers of the family's change sequence and returns the last.
    func advance(by count: Int64 = 1) async throws -> Int64 {
        if creating { return sequenceAtLock }
        let rows = try await connection.rows(
            "UPDATE families SET change_seq = change_seq + \(count) WHERE family_id = \(id) RETURNING change_seq", logger: logger
        )
        guard let sequence = try rows.decode(Int64.self).first else {
            throw FamilySyncError.notFound("No such family.")
        }
        return sequence
    }

    /// A live zone of the family; `ZONE_NOT_FOUND` otherwise.
    public func zone(_ name: String) async throws -> Zone {
        try await ZoneRows.zone(id, name, on: connection, logger: logger)
    }

    /// Writes decided records into a zone, and what is derived from them (`RecordTypeRegistry`),
    /// each into its zone: takes numbers of the family's sequence, stamps each record's change tag
    /// with its number, advances the zones written and tells the polls. Every write of records goes
    /// through here (modify, commands, usage, retention, alerts). Derivations see the zone's local
    /// days in `timeZone`, by default its device's (`owner(of:)`).
    @discardableResult
    public func commit(_ records: [Record], into zoneName: String, derivingIn timeZone: TimeZone? = nil) async throws -> Commit {
        try await commit(records, into: .named(zoneName), derivingIn: timeZone)
    }

    /// As `commit(_:into:derivingIn:)`, into a zone already read (spares the read derivations need);
    /// `categoryKinds`, when the caller read them already, spares that read too.
    @discardableResult
    public func commit(_ records: [Record], into zone: Zone, derivingIn timeZone: TimeZone? = nil, categoryKinds: CategoryKinds? = nil) async throws -> Commit {
        try await commit(records, into: .read(zone), derivingIn: timeZone, categoryKinds: categoryKinds)
    }

    /// The kinds of the family's categories: the built-ins, and its own from the `Category`
    /// records of its `family` zone (§9.1).
    public func categoryKinds() async throws -> CategoryKinds {
        CategoryKinds(records: try await RecordRow.fields(ofType: RecordTypeName.category, inZone: "family", family: id, on: connection, logger: logger))
    }

    /// Refuses a family's own category without its record (§9.1), the first of `named`: 400
    /// naming its member. The family's categories are read only when one of its own is named.
    public func checkCategories(_ named: [NamedCategory]) async throws {
        let own = named.filter { !$0.category.isBuiltIn }
        guard !own.isEmpty else { return }
        try await categoryKinds().check(own)
    }

    /// As `checkCategories(_:)`, for what the records' types name in their fields
    /// (`RecordTypeRegistry`); `fields(index)` is the path of the record at `index`'s fields.
    public func checkCategories(of records: [Record], fields: (Int) -> String) async throws {
        try await checkCategories(records.enumerated().flatMap { index, record in RecordTypeRegistry.categories(namedBy: record, field: fields(index)) })
    }

    /// Tells every instance's polls what changed, on commit (`pg_notify` in this transaction),
    /// and, with push on, the registered devices it concerns other than `writer`'s (§12).
    func publish(_ notices: [ChangeNotice], writer: UUID? = nil) async throws {
        try await announce(notices)
        pendingPushes?.add(notices, writer: writer)
    }

    /// Tells polls and credential caches, and pushes nothing: for a change no device's data shows
    /// (a credential rotated).
    func announce(_ notices: [ChangeNotice]) async throws {
        guard !creating else { return }
        try await ChangeNoticeChannel.publish(notices, on: connection, logger: logger)
        published.add(notices)
    }

    /// Records in one statement (one round trip for a whole batch), inserting new ones and
    /// overwriting stored ones and tombstones. The rows come from `unnest` joined to the family's
    /// own row (docs/operations.md, Citus rule 8).
    func write(_ records: [(record: Record, sequence: Int64)], into zoneName: String) async throws {
        let list = records.map(\.record)
        try await connection.rows(
            """
            INSERT INTO records (family_id, zone_name, record_name, record_type, fields, change_tag, deleted, created_at, created_by,
                                 modified_at, modified_by, modified_role, client_modified_at, seq)
            SELECT f.family_id, \(zoneName), name, type, body, tag, gone, created, creator, modified, modifier, role, client, seq
            FROM families f CROSS JOIN unnest(\(list.map(\.recordName))::text[], \(list.map(\.recordType))::text[], \(list.map { RecordFields($0.fields) })::jsonb[],
                        \(list.map(\.changeTag))::text[], \(list.map(\.deleted))::bool[], \(list.map(\.createdAt))::timestamptz[],
                        \(list.map(\.createdBy))::uuid[], \(list.map(\.modifiedAt))::timestamptz[], \(list.map(\.modifiedBy))::uuid[],
                        \(list.map(\.modifiedRole.rawValue))::text[], \(list.map(\.clientModifiedAt))::timestamptz[], \(records.map(\.sequence))::bigint[])
                AS u(name, type, body, tag, gone, created, creator, modified, modifier, role, client, seq)
            WHERE f.family_id = \(id)
            ON CONFLICT (family_id, zone_name, record_name) DO UPDATE SET
                record_type = EXCLUDED.record_type, fields = EXCLUDED.fields, change_tag = EXCLUDED.change_tag, deleted = EXCLUDED.deleted,
                created_at = EXCLUDED.created_at, created_by = EXCLUDED.created_by, modified_at = EXCLUDED.modified_at,
                modified_by = EXCLUDED.modified_by, modified_role = EXCLUDED.modified_role,
                client_modified_at = EXCLUDED.client_modified_at, seq = EXCLUDED.seq
            """,
            logger: logger
        )
    }
}
