import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// A change the app hands a `SyncEngine` to send (CKSyncEngine's pending record zone change, and
/// a command, which CloudKit has no word for): kept in the engine's state until the server has
/// answered it, sent in order, at most once in effect.
public struct PendingChange: Codable, Sendable, Equatable, Identifiable {
    public enum Kind: Codable, Sendable, Equatable {
        /// A record operation in a zone: a save (`create`, `replace`, …) or a delete.
        case record(zone: String, operation: RecordOperation)
        /// A command to a child device (§7.1).
        case command(child: UUID, request: CreateCommandRequest)
    }

    /// Also the command's idempotency key (§1.2.1).
    public let id: UUID
    public let kind: Kind
    /// When the app made the change.
    public let madeAt: Date

    public init(id: UUID = UUID(), _ kind: Kind, madeAt: Date = Date()) {
        self.id = id
        self.kind = kind
        self.madeAt = madeAt
    }

    /// The record it changes, for merging and for holding back fetched versions of it.
    public var record: RecordKey? {
        if case .record(let zone, let operation) = kind { return RecordKey(zone: zone, recordName: operation.record.recordName) }
        return nil
    }

    public struct RecordKey: Hashable, Sendable {
        public let zone: String
        public let recordName: String
    }
}

extension PendingChange {
    /// Saves `record` in `zone`: with its change tag a `replace` (a conflict is §5.4's to decide),
    /// without one a `create` (CloudKit's new record), or `operation` if given. Stamped with the
    /// instant the app made it, which is what §5.4 compares.
    public static func save(_ record: RecordInput, in zone: String, operation: RecordOperationType? = nil, at now: Date = Date()) -> PendingChange {
        var record = record
        if record.clientModifiedAt == nil { record.clientModifiedAt = now }
        let type = operation ?? (record.recordChangeTag == nil ? .create : .replace)
        return PendingChange(.record(zone: zone, operation: RecordOperation(operationType: type, record: record)), madeAt: now)
    }

    /// Deletes a record: with its change tag a `delete` (a newer write elsewhere wins), without
    /// one a `forceDelete`.
    public static func delete(_ recordName: String, type: String? = nil, changeTag: String? = nil, in zone: String, at now: Date = Date()) -> PendingChange {
        let record = RecordInput(recordName: recordName, recordType: type, recordChangeTag: changeTag, clientModifiedAt: now)
        return PendingChange(.record(zone: zone, operation: RecordOperation(operationType: changeTag == nil ? .forceDelete : .delete, record: record)), madeAt: now)
    }

    /// A command to a child device.
    public static func command(_ request: CreateCommandRequest, to child: UUID, at now: Date = Date()) -> PendingChange {
        PendingChange(.command(child: child, request: request), madeAt: now)
    }

    /// A member's `Budget` (§9.3), as `FamilySyncClient.setBudget` writes it: without a change tag
    /// it replaces whatever is stored.
    public static func budget(_ fields: [String: JSONValue], of member: UUID, changeTag: String? = nil, at now: Date = Date()) throws(FamilySyncError) -> PendingChange {
        guard case .string(let id)? = fields["budgetID"] else { throw .badRequest("A budget needs its budgetID.", field: "budgetID") }
        return typed(Budget.recordName(id), RecordTypeName.budget, fields, Member.zoneName(of: member), changeTag, now)
    }

    /// A member's `Schedule` (§11), as `FamilySyncClient.setSchedule` writes it.
    public static func schedule(_ fields: [String: JSONValue], of member: UUID, changeTag: String? = nil, at now: Date = Date()) throws(FamilySyncError) -> PendingChange {
        guard case .string(let id)? = fields["scheduleID"] else { throw .badRequest("A schedule needs its scheduleID.", field: "scheduleID") }
        return typed(Schedule.recordName(id), RecordTypeName.schedule, fields, Member.zoneName(of: member), changeTag, now)
    }

    /// An `AppConfiguration` record in a zone (a child's own, or its member's).
    public static func appConfiguration(_ fields: [String: JSONValue], named recordName: String, in zone: String, changeTag: String? = nil, at now: Date = Date()) -> PendingChange {
        typed(recordName, RecordTypeName.appConfiguration, fields, zone, changeTag, now)
    }

    private static func typed(_ name: String, _ type: String, _ fields: [String: JSONValue], _ zone: String, _ changeTag: String?, _ now: Date) -> PendingChange {
        save(RecordInput(recordName: name, recordType: type, fields: fields, recordChangeTag: changeTag), in: zone, operation: changeTag == nil ? .forceReplace : .replace, at: now)
    }
}

/// The engine's outbox rules, without I/O: how a change joins what is pending, and what goes in
/// the next request.
public enum Outbox {
    /// `changes` added to `pending`, in order: a record's later change replaces its earlier one
    /// still waiting (two saves send the last; a save then a delete sends the delete) and takes
    /// its place at the end, since it was made last; a delete of a record only ever created here
    /// cancels both. Commands are never merged. Linear in the changes: an app may add thousands.
    public static func adding(_ changes: [PendingChange], to pending: [PendingChange]) -> [PendingChange] {
        var records: [PendingChange.RecordKey: (change: PendingChange?, position: Int)] = [:]
        var commands: [(change: PendingChange, position: Int)] = []
        for (position, change) in (pending + changes).enumerated() {
            guard let key = change.record else {
                commands.append((change, position))
                continue
            }
            records[key] = (merged(records[key]?.change, then: change), position)
        }
        let kept = commands + records.values.compactMap { entry in entry.change.map { ($0, entry.position) } }
        return kept.sorted { $0.position < $1.position }.map(\.change)
    }

    public static func adding(_ change: PendingChange, to pending: [PendingChange]) -> [PendingChange] {
        adding([change], to: pending)
    }

    /// One record's earlier change waiting (if any) and its later one, as one (nil: nothing to send).
    static func merged(_ earlier: PendingChange?, then later: PendingChange) -> PendingChange? {
        guard let earlier, case .record(_, let first) = earlier.kind, first.operationType == .create,
            case .record(let zone, var operation) = later.kind
        else { return later }
        // Never sent: deleting it leaves nothing to send; saving it again is still a create.
        if operation.operationType.isDelete { return nil }
        guard operation.record.recordChangeTag == nil else { return later }
        operation.operationType = .create
        return PendingChange(id: later.id, .record(zone: zone, operation: operation), madeAt: later.madeAt)
    }

    /// The next request: the first pending change's zone, with that zone's record changes up to
    /// the next command, at most `limit` (§5.3: 400 a request); or the first change alone when it
    /// is a command. Zones are independent, so another zone's changes between them wait their turn.
    public static func nextBatch(of pending: [PendingChange], limit: Int = Limits.maximumOperations) -> [PendingChange] {
        guard let first = pending.first else { return [] }
        guard let zone = first.record?.zone else { return [first] }
        var batch: [PendingChange] = []
        for change in pending {
            guard let key = change.record else { break }
            if key.zone == zone { batch.append(change) }
            if batch.count == limit { break }
        }
        return batch
    }
}

/// The request being sent, kept in the state before it goes: after a restart it goes again, with
/// the same key and the same body, so the server answers it once (§1.2.1).
public struct SendingBatch: Codable, Sendable, Equatable {
    public let idempotencyKey: String
    public let changes: [PendingChange]

    public init(idempotencyKey: String, changes: [PendingChange]) {
        self.idempotencyKey = idempotencyKey
        self.changes = changes
    }
}

/// What became of a change the engine sent (the `sent` event).
public struct SentChange: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// Written; the record as saved, with its new change tag and `outcome` (`resolution` says
        /// when it won a conflict).
        case saved(RecordBody)
        /// Lost to another writer under §5.4: the stored record, to merge and save again with its
        /// change tag (CKSyncEngine's `serverRecordChanged`).
        case conflict(serverRecord: RecordBody, error: FamilySyncError)
        /// The command as made.
        case commandCreated(CommandBody)
        /// Refused for good: a refused field, a zone gone, the device revoked. Not sent again.
        case failed(FamilySyncError)
    }

    public let change: PendingChange
    public let outcome: Outcome

    public init(change: PendingChange, outcome: Outcome) {
        self.change = change
        self.outcome = outcome
    }
}
