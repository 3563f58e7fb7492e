import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A parent's reads of a child's usage (§7.4): its summaries and its sessions, each in one snapshot.
public struct PostgresUsageReads: Sendable {
    let database: Database
    let logger: Logger

    public init(changeLog: ChangeLog, logger: Logger) {
        self.database = changeLog.database
        self.logger = logger
    }

    /// The stored summaries of a child device among `dates`, by date.
    public func summaries(of childID: UUID, familyID: UUID, dates: [String]) async throws -> [String: DailySummary] {
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            let zone = try await ZoneRows.childZone(childID, of: familyID, for: .readHistory, on: connection, logger: logger)
            return try await UsageRows.summaries(for: dates, familyID: familyID, zone: zone, on: connection, logger: logger)
        }
    }

    public typealias Cursor = UsageSession.PageCursor

    public func usage(of childID: UUID, familyID: UUID, from: Date, to: Date, after cursor: Cursor?, limit: Int) async throws -> (sessions: [UsageSession], next: Cursor?) {
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            let zone = try await ZoneRows.childZone(childID, of: familyID, for: .readHistory, on: connection, logger: logger)
            let afterEnd = cursor?.sessionEnd ?? "", afterName = cursor?.recordName ?? ""
            let rows = try await connection.rows(
                """
                SELECT record_name, fields FROM records
                WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = '\(unescaped: RecordTypeName.usageRecord)' AND NOT deleted
                  AND fields ->> 'sessionEnd' >= \(Instant.format(from)) AND fields ->> 'sessionStart' < \(Instant.format(to))
                  AND (fields ->> 'sessionEnd', record_name) > (\(afterEnd), \(afterName))
                ORDER BY fields ->> 'sessionEnd', record_name
                LIMIT \(limit + 1)
                """,
                logger: logger
            )
            var page: [(String, UsageSession)] = []
            for (name, fields) in try rows.decode((String, RecordFields).self) {
                if let session = UsageSession(fields: fields.value) { page.append((name, session)) }
            }
            let more = page.count > limit
            page = Array(page.prefix(limit))
            let next = more ? page.last.map { Cursor(sessionEnd: Instant.format($0.1.sessionEnd), recordName: $0.0) } : nil
            return (page.map(\.1), next)
        }
    }
}
