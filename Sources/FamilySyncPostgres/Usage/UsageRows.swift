import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// How an upload and the parents' reads read a device's usage records.
enum UsageRows {
    /// The categories the zone's `AppConfiguration` records give these apps, by `logicalID`.
    static func configuredCategories(of logicalIDs: [String], familyID: UUID, zone: String, on connection: PostgresConnection, logger: Logger) async throws -> [String: CategoryID] {
        let rows = try await connection.rows(
            """
            SELECT fields ->> 'logicalID', fields ->> 'category' FROM records
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = '\(unescaped: RecordTypeName.appConfiguration)' AND NOT deleted
              AND fields ->> 'logicalID' = ANY(\(Array(Set(logicalIDs))))
            """,
            logger: logger
        )
        var configured: [String: CategoryID] = [:]
        for (logicalID, category) in try rows.decode((String?, String?).self) {
            if let logicalID, let category = category.flatMap(CategoryID.init(rawValue:)) { configured[logicalID] = category }
        }
        return configured
    }

    static func sessions(named names: [String], familyID: UUID, zone: String, on connection: PostgresConnection, logger: Logger) async throws -> [String: UsageSession] {
        let rows = try await connection.rows(
            """
            SELECT record_name, fields FROM records
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_name = ANY(\(names)) AND record_type = '\(unescaped: RecordTypeName.usageRecord)' AND NOT deleted
            """,
            logger: logger
        )
        var found: [String: UsageSession] = [:]
        for (name, fields) in try rows.decode((String, RecordFields).self) {
            found[name] = UsageSession(fields: fields.value)
        }
        return found
    }

    /// The stored summaries among `days`, by date.
    static func summaries(for days: [String], familyID: UUID, zone: String, on connection: PostgresConnection, logger: Logger) async throws -> [String: DailySummary] {
        let rows = try await connection.rows(
            """
            SELECT fields FROM records
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_name = ANY(\(days.map(DailySummary.recordName))) AND NOT deleted
            """,
            logger: logger
        )
        var found: [String: DailySummary] = [:]
        for fields in try rows.decode(RecordFields.self) {
            if let summary = DailySummary(fields: fields.value) {
                found[summary.date] = summary
            }
        }
        return found
    }
}
