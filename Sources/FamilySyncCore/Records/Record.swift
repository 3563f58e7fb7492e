import Foundation

/// A record of a zone (PROTOCOL §5.1), as stored.
public struct Record: Sendable, Equatable {
    public var recordName: String
    public var recordType: String
    public var fields: [String: JSONValue]
    public var changeTag: String
    public var deleted: Bool
    public var createdAt: Date
    public var createdBy: UUID
    public var modifiedAt: Date
    public var modifiedBy: UUID
    public var modifiedRole: WriterRole
    public var clientModifiedAt: Date

    public init(
        recordName: String, recordType: String, fields: [String: JSONValue], changeTag: String, deleted: Bool,
        createdAt: Date, createdBy: UUID, modifiedAt: Date, modifiedBy: UUID, modifiedRole: WriterRole, clientModifiedAt: Date
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.changeTag = changeTag
        self.deleted = deleted
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.modifiedAt = modifiedAt
        self.modifiedBy = modifiedBy
        self.modifiedRole = modifiedRole
        self.clientModifiedAt = clientModifiedAt
    }

    /// The stamp a conflict is resolved by (§5.4); the server's own writes rank as a parent's.
    public var stamp: WriteStamp {
        WriteStamp(clientModifiedAt: clientModifiedAt, role: modifiedRole == .child ? .child : .parent, deviceID: modifiedBy)
    }
}

extension Record {
    /// This record as `writer` (nil: the last writer, for the server's own writes) writes it with
    /// `fields` at `now`: name, type and creation kept, the writer's stamps moved.
    public func rewritten(fields: [String: JSONValue], by writer: UUID?, role: WriterRole, at now: Date) -> Record {
        var record = self
        record.fields = fields
        record.modifiedAt = now
        record.modifiedBy = writer ?? modifiedBy
        record.modifiedRole = role
        record.clientModifiedAt = now
        return record
    }

    /// This record deleted at `now` by `writer` (nil: the server, keeping the last writer's id): a
    /// tombstone keeps the name, type and creation and holds no fields (§5.2). The change log
    /// gives it its change tag.
    public func tombstone(by writer: UUID?, role: WriterRole, at now: Date) -> Record {
        var record = rewritten(fields: [:], by: writer, role: role, at: now)
        record.deleted = true
        return record
    }
}

/// Who wrote a record's current version (`modified.role` on the wire): a device of a role, or the
/// server itself (derived records, commands it delivered or expired, usage it expired).
public enum WriterRole: String, Sendable, Codable, CaseIterable {
    case parent, child, server

    public init(_ role: DeviceRole) {
        switch role {
        case .parent: self = .parent
        case .child: self = .child
        }
    }
}

/// How a write that came with a stale change tag was settled (`resolution` in modify results).
public enum WriteResolution: String, Sendable, Codable {
    /// It won by §5.4's rule (later `clientModifiedAt`, parent on a tie) and was applied.
    case incomingWon
}

/// How a device sees a zone (`scope` in zone listings, PROTOCOL §4): a parent's own database, or
/// one shared with a child.
public enum ZoneScope: String, Sendable, Codable {
    case `private`, shared
}

/// The seven operations of `records/modify` (PROTOCOL §5.3).
public enum RecordOperationType: String, Sendable, Codable, CaseIterable {
    case create, update, forceUpdate, replace, forceReplace, delete, forceDelete

    /// Whether it needs the record's current change tag (and so can conflict).
    public var needsChangeTag: Bool { self == .update || self == .replace || self == .delete }
    public var isDelete: Bool { self == .delete || self == .forceDelete }
    /// `update` merges the fields sent; `replace` sets exactly them.
    public var merges: Bool { self == .update || self == .forceUpdate }
}
