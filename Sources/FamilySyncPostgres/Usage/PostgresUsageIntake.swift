import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Usage uploads (PROTOCOL §7.2, §9.2): `UsageRecord` records `usage-<recordID>` and `DailyTotals`
/// in the device's zone, committed through the change log with what they derive (summaries,
/// weeks, budget alerts), so parents get all of it through change tokens.
public struct PostgresUsageIntake: Sendable {
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
    ///
    /// A session older than usage is kept (`retention`, the server's, or the family's own days
    /// when fewer) is refused, naming it where the request holds it (`items`).
    public func upload(
        _ sessions: [UsageSession], uncategorised: Set<UUID> = [], timeZone: String?, retention: TimeInterval = .infinity, child: AuthenticatedDevice, items: ItemPath,
        as writer: ChangeWriter
    ) async throws -> Upload {
        let now = clock.now()
        let logger = logger
        let familyID = child.familyID
        // Under the family's lock: uploads of one family queue, so overlapping retries cannot both
        // store a record.
        return try await changeLog.write(family: familyID, as: writer) { family in
            let connection = family.connection
            // A tracked device's own zone: `child-…`, or `device-…` for a tracked parent's (§8).
            guard let ownZone = child.zoneName else { throw FamilySyncError(.accessDenied, "This device is not tracked.") }
            var zone = try await family.zone(ownZone)
            let zoneName = zone.name
            let tz = try await Self.timeZone(timeZone, of: child, in: family)

            // Categories: named ones known to the family, the others resolved.
            let kinds = try await family.categoryKinds()
            try kinds.check(sessions.enumerated().filter { !uncategorised.contains($1.recordID) }.map { NamedCategory($1.category, field: items($0, "category")) })
            let configured = uncategorised.isEmpty ? [:] : try await UsageRows.configuredCategories(
                of: sessions.filter { uncategorised.contains($0.recordID) }.map(\.logicalID), familyID: familyID, zone: zoneName, on: connection, logger: logger
            )
            let stored = try await UsageRows.sessions(named: sessions.map(\.recordName), familyID: familyID, zone: zoneName, on: connection, logger: logger)
            let fresh = try UsageUploadPlan.fresh(sessions, uncategorised: uncategorised, configured: configured, stored: stored)

            // With the family's own usage retention, if it set one (§15.1), in the same statement.
            let kept = try await connection.rows(
                """
                WITH kept AS (SELECT usage_sessions FROM family_retention WHERE family_id = \(familyID))
                UPDATE devices SET last_sync_at = \(now) WHERE family_id = \(familyID) AND device_id = \(child.deviceID)
                RETURNING (SELECT usage_sessions FROM kept)
                """,
                logger: logger
            ).first?.decode(Int?.self) ?? nil
            try RetentionSettings.checkKept(sessions.map(\.sessionEnd), server: retention, familyDays: kept, now: now) { items($0, "sessionEnd") }
            // The new records, and the summaries of the days they touch (their type's derivation).
            var derived: [String: DailySummary] = [:]
            var alerts: [Alert] = []
            var sequence = zone.changedSequence
            if !fresh.isEmpty {
                let commit = try await family.commit(fresh.map { Self.record($0, by: child.deviceID, now: now) }, into: zone, derivingIn: tz, categoryKinds: kinds)
                for record in commit.derived where record.recordType == RecordTypeName.dailySummary {
                    if let summary = DailySummary(fields: record.fields) { derived[summary.date] = summary }
                }
                alerts = commit.derived.filter { $0.recordType == RecordTypeName.alert }.compactMap { Alert(fields: $0.fields) }
                sequence = commit.sequence
                zone.changedSequence = sequence
            }
            // The answer has every day the upload touches; those not written again are as stored.
            let days = DailySummary.days(touchedBy: sessions, in: tz)
            let unchanged = days.filter { derived[$0] == nil }
            let asStored = unchanged.isEmpty ? [:] : try await UsageRows.summaries(for: unchanged, familyID: familyID, zone: zoneName, on: connection, logger: logger)
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
        _ apps: [DailyTotals.App], date: String, uncategorised: Set<String> = [], timeZone: String?, retention: TimeInterval, child: AuthenticatedDevice, items: ItemPath,
        as writer: ChangeWriter
    ) async throws -> TotalsUpload {
        let now = clock.now()
        let logger = logger
        let familyID = child.familyID
        return try await changeLog.write(family: familyID, as: writer) { family in
            let connection = family.connection
            guard let ownZone = child.zoneName else { throw FamilySyncError(.accessDenied, "This device is not tracked.") }
            var zone = try await family.zone(ownZone)
            let zoneName = zone.name
            let tz = try await Self.timeZone(timeZone, of: child, in: family)
            // The server's retention, or the family's own if shorter (§15.1).
            let days = try await family.retentionSettings().days[.dailyTotals]
            try DailyTotals.checkDate(date, in: tz, now: now, retention: RetentionSettings.keptSeconds(server: retention, familyDays: days), field: "date")

            let kinds = try await family.categoryKinds()
            try kinds.check(apps.enumerated().filter { !uncategorised.contains($1.logicalID) }.map { NamedCategory($1.category, field: items($0, "category")) })
            var report = apps
            if !uncategorised.isEmpty {
                let configured = try await UsageRows.configuredCategories(of: Array(uncategorised), familyID: familyID, zone: zoneName, on: connection, logger: logger)
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
                    recordName: after.recordName, recordType: RecordTypeName.dailyTotals, fields: after.fields, changeTag: "", deleted: false,
                    createdAt: stored?.createdAt ?? now, createdBy: stored?.createdBy ?? child.deviceID, modifiedAt: now, modifiedBy: child.deviceID,
                    modifiedRole: .child, clientModifiedAt: now
                )
                let commit = try await family.commit([record], into: zone, derivingIn: tz, categoryKinds: kinds)
                derived = commit.derived.lazy.filter { $0.recordType == RecordTypeName.dailySummary }.compactMap { DailySummary(fields: $0.fields) }.first
                alerts = commit.derived.filter { $0.recordType == RecordTypeName.alert }.compactMap { Alert(fields: $0.fields) }
                sequence = commit.sequence
                zone.changedSequence = sequence
            }
            var summary = derived
            if summary == nil { summary = try await UsageRows.summaries(for: [date], familyID: familyID, zone: zoneName, on: connection, logger: logger)[date] }
            return TotalsUpload(summary: summary ?? .empty(date: date, deviceID: child.deviceID, at: now), alerts: alerts, zone: zone, sequence: sequence)
        }
    }

    /// The named time zone, else the device's (`LockedFamily.owner(of:)`, which its derivations
    /// read too), else UTC.
    static func timeZone(_ name: String?, of device: AuthenticatedDevice, in family: LockedFamily) async throws -> TimeZone {
        if let name, let zone = TimeZone(identifier: name) { return zone }
        return try await family.owner(of: device.deviceID).timeZone
    }

    static func record(_ session: UsageSession, by device: UUID, now: Date) -> Record {
        Record(
            recordName: session.recordName, recordType: RecordTypeName.usageRecord, fields: session.fields, changeTag: "", deleted: false,
            createdAt: now, createdBy: device, modifiedAt: now, modifiedBy: device, modifiedRole: .child, clientModifiedAt: now
        )
    }
}
