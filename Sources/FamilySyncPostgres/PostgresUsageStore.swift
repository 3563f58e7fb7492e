import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Usage uploads and daily summaries (PROTOCOL §7.2–§7.3): `UsageRecord` records `usage-<recordID>`
/// and `DailySummary` records `summary-<date>` in the child's zone, written in one transaction
/// through the record engine's `commit`, so parents get both through change tokens.
public struct PostgresUsageStore: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    /// `changeLog`: the one every store writes through (`ServerDependencies` makes it).
    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.database = changeLog.database
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    public struct Upload: Sendable {
        public var accepted: Int
        public var duplicates: Int
        /// Every day the upload's records touch, as stored after it.
        public var summaries: [DailySummary]
        /// The budget alerts this upload made (§9.4).
        public var alerts: [Alert]
        public var zone: Zone
        public var sequence: Int64
    }

    /// Stores the sessions a child uploads for itself, idempotently by `recordID`: one already
    /// stored with the same content is a duplicate, with other content `409 CONFLICT` (and nothing
    /// is stored). The change log derives the summaries of the days they touch
    /// (`DailySummary.derivation`), in `timeZone` (the device's when nil), in the same transaction.
    ///
    /// Categories (§9.1): a named `x-…` category must have its `Category` record (400 naming the
    /// record otherwise); a session in `uncategorised` is put in the device's configured category
    /// of its app, else the built-in table's of its bundle id, else `other`, and re-sent later it
    /// keeps the category it was stored with.
    public func upload(_ sessions: [UsageSession], uncategorised: Set<UUID> = [], timeZone: String?, child: AuthenticatedDevice) async throws -> Upload {
        let now = clock.now()
        let logger = logger
        let familyID = child.familyID
        // Under the family's lock: uploads of one family queue, so overlapping retries cannot both
        // store a record.
        return try await changeLog.write(family: familyID) { family in
            let connection = family.connection
            // A tracked device's own zone: `child-…`, or `device-…` for a tracked parent's (§8).
            guard let ownZone = child.zoneName else { throw FamilySyncError(.accessDenied, "This device is not tracked.") }
            var zone = try await family.zone(ownZone)
            let zoneName = zone.name
            let tz = try await Self.timeZone(timeZone, of: child, in: family)

            // Categories: named ones known to the family, the others resolved.
            let kinds = try await family.categoryKinds()
            try kinds.check(sessions.enumerated().filter { !uncategorised.contains($1.recordID) }.map { NamedCategory($1.category, field: "records[\($0)].category") })
            let configured = uncategorised.isEmpty ? [:] : try await Self.configuredCategories(
                of: sessions.filter { uncategorised.contains($0.recordID) }.map(\.logicalID), familyID: familyID, zone: zoneName, on: connection, logger: logger
            )
            let stored = try await Self.sessions(named: sessions.map(\.recordName), familyID: familyID, zone: zoneName, on: connection, logger: logger)
            let fresh = try UsageUploadPlan.fresh(sessions, uncategorised: uncategorised, configured: configured, stored: stored)

            try await connection.rows(
                "UPDATE devices SET last_sync_at = \(now) WHERE family_id = \(familyID) AND device_id = \(child.deviceID)", logger: logger
            )
            // The new records, and the summaries of the days they touch (their type's derivation).
            var derived: [String: DailySummary] = [:]
            var alerts: [Alert] = []
            var sequence = zone.changedSequence
            if !fresh.isEmpty {
                let commit = try await family.commit(fresh.map { Self.record($0, by: child.deviceID, now: now) }, into: zone, derivingIn: tz, categoryKinds: kinds)
                for record in commit.derived where record.recordType == "DailySummary" {
                    if let summary = DailySummary(fields: record.fields) { derived[summary.date] = summary }
                }
                alerts = commit.derived.filter { $0.recordType == "Alert" }.compactMap { Alert(fields: $0.fields) }
                sequence = commit.sequence
                zone.changedSequence = sequence
            }
            // The answer has every day the upload touches; those not written again are as stored.
            let days = DailySummary.days(touchedBy: sessions, in: tz)
            let unchanged = days.filter { derived[$0] == nil }
            let asStored = unchanged.isEmpty ? [:] : try await Self.summaries(for: unchanged, familyID: familyID, zone: zoneName, on: connection, logger: logger)
            let summaries = days.map { derived[$0] ?? asStored[$0] ?? .empty(date: $0, deviceID: child.deviceID, at: now) }
            return Upload(
                accepted: fresh.count, duplicates: sessions.count - fresh.count, summaries: summaries, alerts: alerts, zone: zone, sequence: sequence
            )
        }
    }

    /// What a daily-totals report did (§9.2).
    public struct TotalsUpload: Sendable {
        /// The day's summary, as stored after it.
        public var summary: DailySummary
        public var alerts: [Alert]
        public var zone: Zone
        public var sequence: Int64
    }

    /// Merges a tracked device's running totals for `date` into its `totals-<date>` record (the
    /// largest total wins per app, `DailyTotals.merging`), and derives the day's summary in the
    /// same transaction; nothing is written when nothing grew. Categories as for sessions: a named
    /// `x-…` one must have its record; an app in `uncategorised` keeps the category it was stored
    /// with, else is categorised by the device's configuration, its bundle id, or `other`.
    /// `timeZone` (the device's when nil) is where `date` is checked (`DailyTotals.checkDate`,
    /// with `retention`) and places the day's sessions.
    public func uploadTotals(
        _ apps: [DailyTotals.App], date: String, uncategorised: Set<String> = [], timeZone: String?, retention: TimeInterval, child: AuthenticatedDevice
    ) async throws -> TotalsUpload {
        let now = clock.now()
        let logger = logger
        let familyID = child.familyID
        return try await changeLog.write(family: familyID) { family in
            let connection = family.connection
            guard let ownZone = child.zoneName else { throw FamilySyncError(.accessDenied, "This device is not tracked.") }
            var zone = try await family.zone(ownZone)
            let zoneName = zone.name
            let tz = try await Self.timeZone(timeZone, of: child, in: family)
            try DailyTotals.checkDate(date, in: tz, now: now, retention: retention, field: "date")

            let kinds = try await family.categoryKinds()
            try kinds.check(apps.enumerated().filter { !uncategorised.contains($1.logicalID) }.map { NamedCategory($1.category, field: "apps[\($0)].category") })
            var report = apps
            if !uncategorised.isEmpty {
                let configured = try await Self.configuredCategories(of: Array(uncategorised), familyID: familyID, zone: zoneName, on: connection, logger: logger)
                for index in report.indices where uncategorised.contains(report[index].logicalID) {
                    report[index].category = CategoryResolver.category(
                        named: nil, logicalID: report[index].logicalID, bundleIdentifier: report[index].bundleIdentifier, configured: configured
                    )
                }
            }

            let stored = try await RecordRow.record(named: DailyTotals.recordName(date), inZone: zoneName, family: familyID, on: connection, logger: logger)
            let before = stored.flatMap(DailyTotals.init(record:)) ?? DailyTotals(date: date, apps: [])
            let after = before.merging(report, keepingCategory: uncategorised)
            try DailyTotals.checkAppCount(after)

            try await connection.rows(
                "UPDATE devices SET last_sync_at = \(now) WHERE family_id = \(familyID) AND device_id = \(child.deviceID)", logger: logger
            )
            var derived: DailySummary?
            var alerts: [Alert] = []
            var sequence = zone.changedSequence
            if after != before {
                let record = Record(
                    recordName: after.recordName, recordType: "DailyTotals", fields: after.fields, changeTag: "", deleted: false,
                    createdAt: stored?.createdAt ?? now, createdBy: stored?.createdBy ?? child.deviceID, modifiedAt: now, modifiedBy: child.deviceID,
                    modifiedRole: .child, clientModifiedAt: now
                )
                let commit = try await family.commit([record], into: zone, derivingIn: tz, categoryKinds: kinds)
                derived = commit.derived.lazy.filter { $0.recordType == "DailySummary" }.compactMap { DailySummary(fields: $0.fields) }.first
                alerts = commit.derived.filter { $0.recordType == "Alert" }.compactMap { Alert(fields: $0.fields) }
                sequence = commit.sequence
                zone.changedSequence = sequence
            }
            var summary = derived
            if summary == nil { summary = try await Self.summaries(for: [date], familyID: familyID, zone: zoneName, on: connection, logger: logger)[date] }
            return TotalsUpload(summary: summary ?? .empty(date: date, deviceID: child.deviceID, at: now), alerts: alerts, zone: zone, sequence: sequence)
        }
    }

    /// The named time zone, else the device's (`LockedFamily.owner(of:)`, which its derivations
    /// read too), else UTC.
    static func timeZone(_ name: String?, of device: AuthenticatedDevice, in family: LockedFamily) async throws -> TimeZone {
        if let name, let zone = TimeZone(identifier: name) { return zone }
        return try await family.owner(of: device.deviceID).timeZone
    }

    // MARK: - Retention

    /// Deletes usage records whose session ended before `cutoff`, and daily totals (§9.2) of days
    /// that ended before it in every time zone, a zone and at most `batchSize` records a
    /// transaction (short locks, the family's lock first as in every writer). They leave
    /// tombstones with no content, so followers of the zone drop them too; the tombstones go with
    /// the tombstone horizon. Daily summaries stay. Returns how many were deleted.
    @discardableResult
    public func expireUsage(before cutoff: Date, batchSize: Int = 500) async throws -> Int {
        let lastExpiredDay = DailyTotals.lastEndedDate(before: cutoff)
        let sessions = try await expire(type: "UsageRecord", field: "sessionEnd", before: Instant.format(cutoff), batchSize: batchSize)
        return sessions + (try await expire(type: "DailyTotals", field: "date", before: lastExpiredDay, orEqual: true, batchSize: batchSize))
    }

    /// Tombstones the live records of `type` whose text `field` sorts before `bound` (or equal to it).
    private func expire(type: String, field: String, before bound: String, orEqual: Bool = false, batchSize: Int) async throws -> Int {
        let logger = logger
        let now = clock.now()
        // Names from this file, written into the statement so that it matches the expression index.
        let expired = "record_type = '\(type)' AND NOT deleted AND fields ->> '\(field)' \(orEqual ? "<=" : "<") "
        var deleted = 0
        while true {
            let zones = try await database.rows(
                """
                SELECT DISTINCT family_id, zone_name FROM (
                    SELECT family_id, zone_name FROM records WHERE \(unescaped: expired) \(bound) LIMIT 1000
                ) expired
                """,
                logger: logger
            ).map { try $0.decode((UUID, String).self) }
            if zones.isEmpty { return deleted }
            for (familyID, zone) in zones {
                deleted += try await changeLog.write(family: familyID) { family in
                    let rows = try await family.connection.rows(
                        """
                        SELECT \(unescaped: RecordRow.columns) FROM records
                        WHERE family_id = \(familyID) AND zone_name = \(zone) AND \(unescaped: expired) \(bound)
                        ORDER BY fields ->> '\(unescaped: field)' LIMIT \(batchSize) FOR UPDATE
                        """,
                        logger: logger
                    )
                    let tombstones = try rows.map(RecordRow.decode).map { record in
                        var tombstone = record
                        tombstone.deleted = true
                        tombstone.fields = [:]
                        tombstone.modifiedAt = now
                        tombstone.modifiedRole = .server
                        tombstone.clientModifiedAt = now
                        return tombstone
                    }
                    guard !tombstones.isEmpty else { return 0 }
                    try await family.commit(tombstones, into: zone)
                    return tombstones.count
                }
            }
        }
    }

    // MARK: - Parent reads (§7.4)

    /// The stored summaries of a child device among `dates`, by date.
    public func summaries(of childID: UUID, familyID: UUID, dates: [String]) async throws -> [String: DailySummary] {
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            let zone = try await ZoneRows.childZone(childID, of: familyID, for: .readHistory, on: connection, logger: logger)
            return try await Self.summaries(for: dates, familyID: familyID, zone: zone, on: connection, logger: logger)
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
        return try await database.inSnapshot(logger: logger) { connection in
            let zone = try await ZoneRows.childZone(childID, of: familyID, for: .readHistory, on: connection, logger: logger)
            let afterEnd = cursor?.sessionEnd ?? "", afterName = cursor?.recordName ?? ""
            let rows = try await connection.rows(
                """
                SELECT record_name, fields FROM records
                WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = 'UsageRecord' AND NOT deleted
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

    // MARK: - Helpers

    static func record(_ session: UsageSession, by device: UUID, now: Date) -> Record {
        Record(
            recordName: session.recordName, recordType: "UsageRecord", fields: session.fields, changeTag: "", deleted: false,
            createdAt: now, createdBy: device, modifiedAt: now, modifiedBy: device, modifiedRole: .child, clientModifiedAt: now
        )
    }

    /// The categories the zone's `AppConfiguration` records give these apps, by `logicalID`.
    static func configuredCategories(of logicalIDs: [String], familyID: UUID, zone: String, on connection: PostgresConnection, logger: Logger) async throws -> [String: CategoryID] {
        let rows = try await connection.rows(
            """
            SELECT fields ->> 'logicalID', fields ->> 'category' FROM records
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = 'AppConfiguration' AND NOT deleted
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
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_name = ANY(\(names)) AND record_type = 'UsageRecord' AND NOT deleted
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
