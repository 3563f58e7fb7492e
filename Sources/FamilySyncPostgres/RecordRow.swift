import FamilySyncCore
import Foundation
import PostgresNIO

/// The columns of `records` and their decoding.
enum RecordRow {
    static let columns = """
        record_name, record_type, fields::text, change_tag, deleted, created_at, created_by, modified_at, modified_by, modified_role, client_modified_at
        """

    static let columnCount = 11

    /// One decoder for every row: making one a row cost more than many small fields take to decode.
    static let fieldsDecoder = JSONDecoder()

    /// A `fields::text` cell as the record's fields.
    static func fields(_ text: String) throws -> [String: JSONValue] {
        try fieldsDecoder.decode([String: JSONValue].self, from: Data(text.utf8))
    }

    static func decode(_ row: PostgresRow) throws -> Record {
        try decode(row, skipping: 0)
    }

    /// A record whose columns follow `skipping` others in the row.
    static func decode(_ row: PostgresRow, skipping offset: Int) throws -> Record {
        let cells = row.makeRandomAccess()
        let fields = try Self.fields(cells[offset + 2].decode(String.self))
        return Record(
            recordName: try cells[offset].decode(String.self), recordType: try cells[offset + 1].decode(String.self), fields: fields,
            changeTag: try cells[offset + 3].decode(String.self), deleted: try cells[offset + 4].decode(Bool.self),
            createdAt: try cells[offset + 5].decode(Date.self), createdBy: try cells[offset + 6].decode(UUID.self),
            modifiedAt: try cells[offset + 7].decode(Date.self), modifiedBy: try cells[offset + 8].decode(UUID.self),
            modifiedRole: try writerRole(cells[offset + 9].decode(String.self)), clientModifiedAt: try cells[offset + 10].decode(Date.self)
        )
    }

    static func writerRole(_ text: String) throws -> WriterRole {
        guard let role = WriterRole(rawValue: text) else { throw FamilySyncError(.internalError, "A record has an unknown writer role.") }
        return role
    }

    /// The first column of a row whose record columns follow it.
    static func leading(_ row: PostgresRow) throws -> String {
        try row.makeRandomAccess()[0].decode(String.self)
    }

    /// `fields` as the JSON text PostgreSQL takes for jsonb.
    static func json(_ fields: [String: JSONValue]) throws -> String {
        try RecordSchema.serializedFields(fields)
    }
}
