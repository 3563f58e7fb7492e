import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Usage uploads and daily summaries (PROTOCOL §7.2–§7.3): `UsageRecord` records `usage-<recordID>`
/// and `DailySummary` records `summary-<date>` in the child's zone, written in one transaction
/// through the record engine's `commit`, so parents get both through change tokens.
public struct PostgresUsageStore: Sendable {
    let client: PostgresClient
    let clock: any WallClock
    let logger: Logger

    public init(client: PostgresClient, clock: any WallClock, logger: Logger) {
        self.client = client
        self.clock = clock
        self.logger = logger
    }

    public struct Upload: Sendable {
        public var accepted: Int
        public var duplicates: Int
        /// Every day the upload's records touch, as stored after it.
        public var summaries: [DailySummary]
        public var zone: PostgresRecordStore.Zone
        public var sequence: Int64
    }

    /// Stores the sessions a child uploads for itself, idempotently by `recordID`: one already
    /// stored with the same content is a duplicate, with other content `409 CONFLICT` (and nothing
    /// is stored). The summaries of the days they touch are recomputed from every stored session
    /// of those days, in `timeZone` (the device's when nil), in the same transaction.
    public func upload(_ sessions: [UsageSession], timeZone: String?, child: AuthenticatedDevice) async throws -> Upload {
        let now = clock.now()
        let logger = logger
        let familyID = child.familyID
        return try await client.inTransaction(logger: logger) { connection in
            // The family's row first, as every writer: uploads of one family queue, so overlapping
            // retries cannot both store a record, and cannot deadlock.
            _ = try await PostgresRecordStore.lockFamily(familyID, on: connection, logger: logger)
            var zone = try await PostgresRecordStore.zone(familyID, Device.zoneName(forChild: child.deviceID), on: connection, logger: logger)
            let zoneName = zone.name
            let rows = try await connection.query(
                "SELECT time_zone FROM devices WHERE family_id = \(familyID) AND device_id = \(child.deviceID)", logger: logger
            )
            let deviceZone = try await rows.decode(String.self).first(where: { _ in true }) ?? "UTC"
            let tz = TimeZone(identifier: timeZone ?? deviceZone) ?? .gmt

            // Duplicates and conflicts.
            let stored = try await Self.sessions(named: sessions.map(\.recordName), familyID: familyID, zone: zoneName, on: connection, logger: logger)
            var fresh: [UsageSession] = []
            for (index, session) in sessions.enumerated() {
                guard let existing = stored[session.recordName] else {
                    fresh.append(session)
                    continue
                }
                guard existing == session else {
                    throw FamilySyncError(.conflict, "Record \(session.recordID.lowercased) was uploaded before with other content.", field: "records[\(index)]")
                }
            }

            // The days touched. Only those the new records touch change: they are recomputed from
            // every session stored for them and the new ones; the others are read as stored.
            func daysTouched(by sessions: [UsageSession]) -> [String] {
                var days: Set<String> = []
                for session in sessions { days.formUnion(DailySummaryCalculator.days(of: session, in: tz)) }
                return days.sorted()
            }
            let days = daysTouched(by: sessions)
            let changing = daysTouched(by: fresh)
            var summaries: [DailySummary] = []
            var written: [Record] = fresh.map { Self.record($0, by: child.deviceID, now: now) }
            let previous = try await Self.summaries(for: days, familyID: familyID, zone: zoneName, on: connection, logger: logger)
            for day in days where !changing.contains(day) {
                summaries.append(previous[day]?.record ?? .empty(date: day, deviceID: child.deviceID, at: now))
            }
            if let first = changing.first.flatMap({ DailySummaryCalculator.interval(of: $0, in: tz) }),
                let last = changing.last.flatMap({ DailySummaryCalculator.interval(of: $0, in: tz) }) {
                let known = try await Self.sessions(overlapping: DateInterval(start: first.start, end: last.end), familyID: familyID, zone: zoneName, on: connection, logger: logger)
                let computed = DailySummaryCalculator.summaries(of: known + fresh, days: changing, deviceID: child.deviceID, timeZone: tz, at: now)
                for summary in computed {
                    if let before = previous[summary.date], before.record.sameContent(as: summary) {
                        summaries.append(before.record)
                    } else if previous[summary.date] == nil, summary.byApp.isEmpty {
                        summaries.append(summary)  // nothing stored, nothing to store
                    } else {
                        summaries.append(summary)
                        written.append(Self.record(summary, createdAt: previous[summary.date]?.createdAt ?? now, by: child.deviceID, now: now))
                    }
                }
            }
            summaries.sort { $0.date < $1.date }
            try await connection.query(
                "UPDATE devices SET last_sync_at = \(now) WHERE family_id = \(familyID) AND device_id = \(child.deviceID)", logger: logger
            )
            var sequence = zone.changedSequence
            if !written.isEmpty {
                sequence = try await PostgresRecordStore.commit(written, familyID: familyID, zoneName: zoneName, on: connection, logger: logger).sequence
                zone.changedSequence = sequence
            }
            return Upload(accepted: fresh.count, duplicates: sessions.count - fresh.count, summaries: summaries, zone: zone, sequence: sequence)
        }
    }

    // MARK: - Retention

    /// Deletes usage records whose session ended before `cutoff`, a zone and at most `batchSize`
    /// records a transaction (short locks, the family's lock first as in every writer). They leave
    /// tombstones with no content, so followers of the zone drop them too; the tombstones go with
    /// the tombstone horizon. Daily summaries stay. Returns how many were deleted.
    @discardableResult
    public func expireUsage(before cutoff: Date, batchSize: Int = 500) async throws -> Int {
        let logger = logger
        let now = clock.now()
        let cutoffText = Instant.format(cutoff)
        var deleted = 0
        while true {
            let zones = try await client.rows(
                """
                SELECT DISTINCT family_id, zone_name FROM (
                    SELECT family_id, zone_name FROM records
                    WHERE record_type = 'UsageRecord' AND NOT deleted AND fields ->> 'sessionEnd' < \(cutoffText) LIMIT 1000
                ) expired
                """,
                logger: logger
            ).map { try $0.decode((UUID, String).self) }
            if zones.isEmpty { return deleted }
            for (familyID, zone) in zones {
                deleted += try await client.inTransaction(logger: logger) { connection in
                    _ = try await PostgresRecordStore.lockFamily(familyID, on: connection, logger: logger)
                    let rows = try await connection.query(
                        """
                        SELECT \(unescaped: RecordRow.columns) FROM records
                        WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = 'UsageRecord' AND NOT deleted
                          AND fields ->> 'sessionEnd' < \(cutoffText)
                        ORDER BY fields ->> 'sessionEnd' LIMIT \(batchSize) FOR UPDATE
                        """,
                        logger: logger
                    )
                    let tombstones = try await rows.collect(RecordRow.decode).map { record in
                        var tombstone = record
                        tombstone.deleted = true
                        tombstone.fields = [:]
                        tombstone.modifiedAt = now
                        tombstone.modifiedRole = "server"
                        tombstone.clientModifiedAt = now
                        return tombstone
                    }
                    guard !tombstones.isEmpty else { return 0 }
                    _ = try await PostgresRecordStore.commit(tombstones, familyID: familyID, zoneName: zone, on: connection, logger: logger)
                    return tombstones.count
                }
            }
        }
    }

    // MARK: - Parent reads (§7.4)

    /// The stored summaries of a child device among `dates`, by date.
    public func summaries(of childID: UUID, familyID: UUID, dates: [String]) async throws -> [String: DailySummary] {
        let logger = logger
        return try await client.inSnapshot(logger: logger) { connection in
            let zone = try await Self.childZone(childID, of: familyID, on: connection, logger: logger)
            return try await Self.summaries(for: dates, familyID: familyID, zone: zone, on: connection, logger: logger).mapValues(\.record)
        }
    }

    /// Where a page of usage ended: the last record's `sessionEnd` text and record name.
    public struct Cursor: Sendable, Equatable {
        public var sessionEnd: String
        public var recordName: String

        public init(sessionEnd: String, recordName: String) {
            self.sessionEnd = sessionEnd
            self.recordName = recordName
        }
    }

    /// A child's sessions that overlap [from, to), by end, then record name; a page of `limit`
    /// after `cursor`, and the cursor of the next page when there is one. Keyset paging: a page
    /// neither skips nor repeats a record when uploads arrive between pages.
    public func usage(of childID: UUID, familyID: UUID, from: Date, to: Date, after cursor: Cursor?, limit: Int) async throws -> (sessions: [UsageSession], next: Cursor?) {
        let logger = logger
        return try await client.inSnapshot(logger: logger) { connection in
            let zone = try await Self.childZone(childID, of: familyID, on: connection, logger: logger)
            let afterEnd = cursor?.sessionEnd ?? "", afterName = cursor?.recordName ?? ""
            let rows = try await connection.query(
                """
                SELECT record_name, fields::text FROM records
                WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = 'UsageRecord' AND NOT deleted
                  AND fields ->> 'sessionEnd' >= \(Instant.format(from)) AND fields ->> 'sessionStart' < \(Instant.format(to))
                  AND (fields ->> 'sessionEnd', record_name) > (\(afterEnd), \(afterName))
                ORDER BY fields ->> 'sessionEnd', record_name
                LIMIT \(limit + 1)
                """,
                logger: logger
            )
            var page: [(String, UsageSession)] = []
            for try await (name, text) in rows.decode((String, String).self) {
                if let session = UsageSession(fields: try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))) { page.append((name, session)) }
            }
            let more = page.count > limit
            page = Array(page.prefix(limit))
            let next = more ? page.last.map { Cursor(sessionEnd: Instant.format($0.1.sessionEnd), recordName: $0.0) } : nil
            return (page.map(\.1), next)
        }
    }

    /// The zone of a child device of the family, revoked ones included; 404 for anything else.
    static func childZone(_ childID: UUID, of familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> String {
        let rows = try await connection.query("SELECT role FROM devices WHERE family_id = \(familyID) AND device_id = \(childID)", logger: logger)
        guard try await rows.decode(String.self).first(where: { _ in true }) == DeviceRole.child.rawValue else {
            throw FamilySyncError.notFound("No such child device.")
        }
        return try await PostgresRecordStore.zone(familyID, Device.zoneName(forChild: childID), on: connection, logger: logger).name
    }

    // MARK: - Helpers

    static func record(_ session: UsageSession, by device: UUID, now: Date) -> Record {
        Record(
            recordName: session.recordName, recordType: "UsageRecord", fields: session.fields, changeTag: "", deleted: false,
            createdAt: now, createdBy: device, modifiedAt: now, modifiedBy: device, modifiedRole: DeviceRole.child.rawValue, clientModifiedAt: now
        )
    }

    static func record(_ summary: DailySummary, createdAt: Date, by device: UUID, now: Date) -> Record {
        Record(
            recordName: summary.recordName, recordType: "DailySummary", fields: summary.fields, changeTag: "", deleted: false,
            createdAt: createdAt, createdBy: device, modifiedAt: now, modifiedBy: device, modifiedRole: "server", clientModifiedAt: now
        )
    }

    static func sessions(named names: [String], familyID: UUID, zone: String, on connection: PostgresConnection, logger: Logger) async throws -> [String: UsageSession] {
        let rows = try await connection.query(
            """
            SELECT record_name, fields::text FROM records
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_name = ANY(\(names)) AND record_type = 'UsageRecord' AND NOT deleted
            """,
            logger: logger
        )
        var found: [String: UsageSession] = [:]
        for try await (name, fields) in rows.decode((String, String).self) {
            found[name] = try UsageSession(fields: JSONDecoder().decode([String: JSONValue].self, from: Data(fields.utf8)))
        }
        return found
    }

    /// Stored sessions that overlap `interval`. Instants are stored as fixed-width UTC text, so text
    /// order is time order and the expression index on `sessionEnd` serves the range.
    static func sessions(overlapping interval: DateInterval, familyID: UUID, zone: String, on connection: PostgresConnection, logger: Logger) async throws -> [UsageSession] {
        let rows = try await connection.query(
            """
            SELECT fields::text FROM records
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = 'UsageRecord' AND NOT deleted
              AND fields ->> 'sessionEnd' >= \(Instant.format(interval.start)) AND fields ->> 'sessionStart' < \(Instant.format(interval.end))
            """,
            logger: logger
        )
        var sessions: [UsageSession] = []
        for try await fields in rows.decode(String.self) {
            if let session = UsageSession(fields: try JSONDecoder().decode([String: JSONValue].self, from: Data(fields.utf8))) { sessions.append(session) }
        }
        return sessions
    }

    static func summaries(for days: [String], familyID: UUID, zone: String, on connection: PostgresConnection, logger: Logger) async throws -> [String: (record: DailySummary, createdAt: Date)] {
        let rows = try await connection.query(
            """
            SELECT fields::text, created_at FROM records
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_name = ANY(\(days.map(DailySummary.recordName))) AND NOT deleted
            """,
            logger: logger
        )
        var found: [String: (DailySummary, Date)] = [:]
        for try await (fields, createdAt) in rows.decode((String, Date).self) {
            if let summary = DailySummary(fields: try JSONDecoder().decode([String: JSONValue].self, from: Data(fields.utf8))) {
                found[summary.date] = (summary, createdAt)
            }
        }
        return found
    }
}
