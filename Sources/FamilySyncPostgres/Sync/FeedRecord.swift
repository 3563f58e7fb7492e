import FamilySyncCore
import Foundation
import NIOCore
import PostgresNIO

/// A record as a page of changes sends it: the envelope decoded, the fields kept as the JSON text
/// PostgreSQL prints for the `fields` column. A full sync sends thousands of records the server
/// only passes on; parsing each one's fields into values to print them again was half of its time
/// (perf: Foundation's JSONDecoder and JSONEncoder, 43 % of a full sync's samples).
public struct FeedRecord: Sendable {
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
    public var fieldsJSON: ByteBuffer

    /// The record with its fields parsed, for those who need their values.
    public func record() throws -> Record {
        let fields = try JSONDecoder().decode([String: JSONValue].self, from: Data(fieldsJSON.readableBytesView))
        return Record(
            recordName: recordName, recordType: recordType, fields: fields, changeTag: changeTag, deleted: deleted, createdAt: createdAt,
            createdBy: createdBy, modifiedAt: modifiedAt, modifiedBy: modifiedBy, modifiedRole: modifiedRole, clientModifiedAt: clientModifiedAt
        )
    }
}
