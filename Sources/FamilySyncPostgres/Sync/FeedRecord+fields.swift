import FamilySyncCore
import Foundation
import NIOCore

extension FeedRecord where FieldsJSON == ByteBuffer {
    /// The record with its fields parsed, for those who need their values.
    public func record() throws -> Record {
        let fields = try JSONDecoder().decode([String: JSONValue].self, from: Data(fieldsJSON.readableBytesView))
        return Record(
            recordName: recordName, recordType: recordType, fields: fields, changeTag: changeTag, deleted: deleted, createdAt: createdAt,
            createdBy: createdBy, modifiedAt: modifiedAt, modifiedBy: modifiedBy, modifiedRole: modifiedRole, clientModifiedAt: clientModifiedAt
        )
    }
}
