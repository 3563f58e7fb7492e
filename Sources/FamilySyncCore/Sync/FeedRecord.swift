import Foundation

/// A record as a page of changes sends it: the envelope decoded, the fields kept as the JSON text
/// the store printed for them (`FieldsJSON`: the store's buffer). A full sync sends thousands of
/// records the server only passes on; parsing each one's fields into values to print them again
/// was half of its time (perf: Foundation's JSONDecoder and JSONEncoder, 43 % of a full sync's
/// samples).
public struct FeedRecord<FieldsJSON: Sendable>: Sendable {
    public var recordName: String
    public var recordType: String
    public var changeTag: String
    public var deleted: Bool
    public var createdAt: Date
    public var createdBy: UUID
    public var modifiedAt: Date
    public var modifiedBy: UUID
    public var modifiedRole: WriterRole
    public var clientModifiedAt: Date
    /// A JSON object, as jsonb's output function wrote it (`{"a": 1, "b": "x"}`): valid JSON by
    /// construction, keys in jsonb's order (shorter first).
    public var fieldsJSON: FieldsJSON

    public init(
        recordName: String, recordType: String, changeTag: String, deleted: Bool, createdAt: Date, createdBy: UUID, modifiedAt: Date,
        modifiedBy: UUID, modifiedRole: WriterRole, clientModifiedAt: Date, fieldsJSON: FieldsJSON
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.changeTag = changeTag
        self.deleted = deleted
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.modifiedAt = modifiedAt
        self.modifiedBy = modifiedBy
        self.modifiedRole = modifiedRole
        self.clientModifiedAt = clientModifiedAt
        self.fieldsJSON = fieldsJSON
    }
}
