import FamilySyncCore
import Foundation
import PostgresNIO

/// The columns of `records` and their decoding.
enum RecordRow {
    static let columns = """
        record_name, record_type, fields::text, change_tag, deleted, created_at, created_by, modified_at, modified_by, modified_role, client_modified_at
        """

    static func decode(_ row: PostgresRow) throws -> Record {
        let (name, type, fields, tag, deleted, createdAt, createdBy, modifiedAt, modifiedBy, role, clientModifiedAt) =
            try row.decode((String, String, String, String, Bool, Date, UUID, Date, UUID, String, Date).self)
        let object = try JSONDecoder().decode([String: JSONValue].self, from: Data(fields.utf8))
        return Record(
            recordName: name, recordType: type, fields: object, changeTag: tag, deleted: deleted, createdAt: createdAt,
            createdBy: createdBy, modifiedAt: modifiedAt, modifiedBy: modifiedBy, modifiedRole: role, clientModifiedAt: clientModifiedAt
        )
    }

    /// `fields` as the JSON text PostgreSQL takes for jsonb.
    static func json(_ fields: [String: JSONValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(fields), as: UTF8.self)
    }
}
