import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The columns of `records` and their decoding, by name.
enum RecordRow {
    static let columns = """
        record_name, record_type, fields, change_tag, deleted, created_at, created_by, modified_at, modified_by, modified_role, client_modified_at
        """

    static func decode(_ row: PostgresRow) throws -> Record {
        let cells = row.makeRandomAccess()
        return Record(
            recordName: try cells["record_name"].decode(String.self), recordType: try cells["record_type"].decode(String.self),
            fields: try cells["fields"].decode(RecordFields.self).value,
            changeTag: try cells["change_tag"].decode(String.self), deleted: try cells["deleted"].decode(Bool.self),
            createdAt: try cells["created_at"].decode(Date.self), createdBy: try cells["created_by"].decode(UUID.self),
            modifiedAt: try cells["modified_at"].decode(Date.self), modifiedBy: try cells["modified_by"].decode(UUID.self),
            modifiedRole: try writerRole(cells["modified_role"].decode(String.self)), clientModifiedAt: try cells["client_modified_at"].decode(Date.self)
        )
    }

    static func writerRole(_ text: String) throws -> WriterRole {
        guard let role = WriterRole(rawValue: text) else { throw FamilySyncError(.internalError, "A record has an unknown writer role.") }
        return role
    }

    /// The fields of a zone's live records of one type (a member's budgets, its alerts).
    static func fields(
        ofType type: String, inZone zone: String, family: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws -> [[String: JSONValue]] {
        try await connection.rows(
            "SELECT fields FROM records WHERE family_id = \(family) AND zone_name = \(zone) AND record_type = \(type) AND NOT deleted",
            logger: logger
        ).map { try $0.decode(RecordFields.self).value }
    }

    /// A live record by name, or nil.
    static func record(named name: String, inZone zone: String, family: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Record? {
        try await connection.rows(
            "SELECT \(unescaped: columns) FROM records WHERE family_id = \(family) AND zone_name = \(zone) AND record_name = \(name) AND NOT deleted",
            logger: logger
        ).map(decode).first
    }

    /// A zone's live records of `type` whose instants `[startField, endField)` overlap `interval`
    /// (a day's usage sessions), each with its name, type, fields, creation, zone and deletion.
    static func overlapping(
        _ type: String, startField: String, endField: String, interval: DateInterval, inZone zone: String, family: UUID, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> [PostgresRow] {
        // Written into the statement, not bound, so that it matches the expression index of
        // `schema/` (a partial index on the type); they are names from Core's declarations.
        guard [type, startField, endField].allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isLetter } }) else {
            throw FamilySyncError(.internalError, "A read asked for an unusable field.")
        }
        return try await connection.rows(
            """
            SELECT record_name, record_type, fields, created_at, zone_name, deleted FROM records
            WHERE family_id = \(family) AND zone_name = \(zone) AND record_type = '\(unescaped: type)' AND NOT deleted
              AND fields ->> '\(unescaped: endField)' >= \(Instant.format(interval.start)) AND fields ->> '\(unescaped: startField)' < \(Instant.format(interval.end))
            """,
            logger: logger
        )
    }
}
