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
    /// `parent`, `child`, or `server` for records the server derives.
    public var modifiedRole: String
    public var clientModifiedAt: Date

    public init(
        recordName: String, recordType: String, fields: [String: JSONValue], changeTag: String, deleted: Bool,
        createdAt: Date, createdBy: UUID, modifiedAt: Date, modifiedBy: UUID, modifiedRole: String, clientModifiedAt: Date
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
        WriteStamp(clientModifiedAt: clientModifiedAt, role: modifiedRole == "child" ? .child : .parent, deviceID: modifiedBy)
    }
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
