import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A family's retention settings and the periodic job that carries them out (PROTOCOL §15.1).
/// Records past their kind's days become tombstones with no content, through the change log, so
/// that devices following the zone drop them too (the tombstones go with the tombstone horizon);
/// health rows and the audit log, which no device syncs, are deleted.
public struct PostgresRetention: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.database = changeLog.database
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    /// The settings' columns, in `RetentionKind`'s order.
    static let columns: [(kind: RetentionKind, column: String)] = [
        (.usageSessions, "usage_sessions"), (.dailyTotals, "daily_totals"), (.summaries, "summaries"), (.alerts, "alerts"),
        (.health, "health"), (.commands, "commands"), (.audit, "audit"),
    ]

    /// The family's own settings (none set: every kind the maximum).
    public func settings(familyID: UUID) async throws -> RetentionSettings {
        try await database.rows(Self.select(familyID), logger: logger).first.map(Self.decode) ?? RetentionSettings()
    }

    /// The family's row of settings (none: it set nothing).
    static func select(_ familyID: UUID) -> PostgresQuery {
        "SELECT \(unescaped: columns.map(\.column).joined(separator: ", ")) FROM family_retention WHERE family_id = \(familyID)"
    }

    static func decode(_ row: PostgresRow) throws -> RetentionSettings {
        let cells = row.makeRandomAccess()
        var days: [RetentionKind: Int] = [:]
        for (kind, column) in columns {
            if let value = try cells[column].decode(Int?.self) { days[kind] = value }
        }
        return RetentionSettings(days: days)
    }

    /// Replaces the family's settings (a kind left out goes back to the maximum), audited. What
    /// is now past its days goes at the job's next run.
    public func set(_ settings: RetentionSettings, familyID: UUID, as writer: ChangeWriter) async throws {
        let logger = logger
        let now = clock.now()
        let values = Self.columns.map { settings.days[$0.kind] }
        try await changeLog.write(family: familyID, as: writer) { family in
            try await family.connection.rows(
                """
                INSERT INTO family_retention (family_id, usage_sessions, daily_totals, summaries, alerts, health, commands, audit, updated_at)
                VALUES (\(familyID), \(values[0]), \(values[1]), \(values[2]), \(values[3]), \(values[4]), \(values[5]), \(values[6]), \(now))
                ON CONFLICT (family_id) DO UPDATE SET usage_sessions = EXCLUDED.usage_sessions, daily_totals = EXCLUDED.daily_totals,
                    summaries = EXCLUDED.summaries, alerts = EXCLUDED.alerts, health = EXCLUDED.health, commands = EXCLUDED.commands,
                    audit = EXCLUDED.audit, updated_at = EXCLUDED.updated_at
                """,
                logger: logger
            )
            try await family.audit(.retentionSet, subjectType: "family", at: now)
        }
    }

    /// One round of the job: every family's data past the operator's maximum for every kind
    /// (`--usage-retention-days`), then each family's past its own shorter settings. Returns how
    /// many records and rows went.
    @discardableResult
    public func expire(maximumDays: Int, batchSize: Int = 500) async throws -> Int {
        let now = clock.now()
        var count = try await expire(RetentionSettings(), maximumDays: maximumDays, family: nil, now: now, batchSize: batchSize)
        var after: UUID? = nil
        // The families that chose something, a page at a time.
        while true {
            let page = try await database.rows(
                """
                SELECT family_id, \(unescaped: Self.columns.map(\.column).joined(separator: ", ")) FROM family_retention
                WHERE family_id > \(after ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))) ORDER BY family_id LIMIT 500
                """,
                logger: logger
            )
            guard !page.isEmpty else { return count }
            for row in page {
                let familyID = try row.makeRandomAccess()["family_id"].decode(UUID.self)
                after = familyID
                let settings = try Self.decode(row)
                guard !settings.days.isEmpty else { continue }
                count += try await expire(settings, maximumDays: maximumDays, family: familyID, now: now, batchSize: batchSize)
            }
        }
    }

    /// What `settings` (at the maximum for what they leave out) have past: of one family, or
    /// with `family` nil of every family (then only at the maximum).
    private func expire(_ settings: RetentionSettings, maximumDays: Int, family: UUID?, now: Date, batchSize: Int) async throws -> Int {
        var count = 0
        // A family's pass repeats only what its own settings shorten.
        func due(_ kind: RetentionKind) -> Date? {
            family != nil && settings.days[kind] == nil ? nil : settings.cutoff(kind, maximum: maximumDays, now: now)
        }
        for type in RecordTypeRegistry.types.values.sorted(by: { $0.name < $1.name }) {
            guard let retention = type.retention, let cutoff = due(retention.kind) else { continue }
            count += try await expireRecords(type.name, retention.age, before: cutoff, family: family, now: now, batchSize: batchSize)
        }
        let scope = family.map { "family_id = '\($0.lowercased)' AND " } ?? ""
        if let cutoff = due(.health) {
            let device = "family_id, device_id"
            count += try await delete(from: "device_health_days", keys: "\(device), date", where: "\(scope)date <= ", bound: DailyTotals.lastEndedDate(before: cutoff), batchSize: batchSize)
            count += try await delete(from: "device_heartbeat_gaps", keys: "\(device), started_at", where: "\(scope)ended_at < ", bound: cutoff, batchSize: batchSize)
            count += try await delete(from: "device_errors", keys: "\(device), error_id", where: "\(scope)occurred_at < ", bound: cutoff, batchSize: batchSize)
        }
        if let cutoff = due(.audit) {
            count += try await delete(from: "audit_events", keys: "family_id, event_id", where: "\(scope)at < ", bound: cutoff, batchSize: batchSize)
            count += try await delete(from: "audit_reads", keys: "family_id, day, reader_member_id, route", where: "\(scope)day < ", bound: cutoff, batchSize: batchSize)
        }
        return count
    }

    /// Deletes the rows of `table` matching `condition` `bound`, `batchSize` a statement, by
    /// their primary key (`keys`): a row's physical place is no key on a distributed table, whose
    /// shards each number their own (deploy/citus.sql).
    private func delete(from table: String, keys: String, where condition: String, bound: some PostgresEncodable & Sendable, batchSize: Int) async throws -> Int {
        var deleted = 0
        while true {
            let gone = try await database.rows(
                """
                WITH gone AS (
                    DELETE FROM \(unescaped: table) WHERE (\(unescaped: keys)) IN (
                        SELECT \(unescaped: keys) FROM \(unescaped: table) WHERE \(unescaped: condition)\(bound) LIMIT \(batchSize)
                    )
                    RETURNING 1
                )
                SELECT count(*)::int FROM gone
                """,
                logger: logger
            ).decode(Int.self).first { _ in true } ?? 0
            deleted += gone
            if gone < batchSize { return deleted }
        }
    }

    /// Tombstones the live records of `type` older than `cutoff` (by `age`), a zone and at most
    /// `batchSize` records a transaction (short locks, the family's lock first as in every
    /// writer). Not audited: it is the family's setting carried out.
    private func expireRecords(_ type: String, _ age: RecordRetention.Age, before cutoff: Date, family: UUID?, now: Date, batchSize: Int) async throws -> Int {
        let logger = logger
        // Names from the registry, written into the statement so that it matches the expression
        // indexes (records_usage_end_idx, records_totals_date_idx, records_kept_idx).
        let older: String, bound: String
        switch age {
        case .created:
            (older, bound) = ("created_at < ", Instant.format(cutoff))
        case .instantField(let field):
            (older, bound) = ("fields ->> '\(field)' < ", Instant.format(cutoff))
        case .dayField(let field):
            (older, bound) = ("fields ->> '\(field)' <= ", DailyTotals.lastEndedDate(before: cutoff))
        }
        let comparison = age == .created ? "\(older)\(bound.sqlLiteral)::timestamptz" : "\(older)\(bound.sqlLiteral)"
        let expired = "record_type = '\(type)' AND NOT deleted AND \(comparison)"
        let scope = family.map { "family_id = '\($0.lowercased)' AND " } ?? ""
        var deleted = 0
        while true {
            let zones = try await database.rows(
                """
                SELECT DISTINCT family_id, zone_name FROM (
                    SELECT family_id, zone_name FROM records WHERE \(unescaped: scope)\(unescaped: expired) LIMIT 1000
                ) expired
                """,
                logger: logger
            ).map { try $0.decode((UUID, String).self) }
            if zones.isEmpty { return deleted }
            for (familyID, zone) in zones {
                deleted += try await changeLog.write(family: familyID, as: .server) { family in
                    var family = family
                    family.auditing = false
                    let rows = try await family.connection.rows(
                        """
                        SELECT \(unescaped: RecordRow.columns) FROM records
                        WHERE family_id = \(familyID) AND zone_name = \(zone) AND \(unescaped: expired)
                        LIMIT \(batchSize) FOR UPDATE
                        """,
                        logger: logger
                    )
                    let tombstones = try rows.map(RecordRow.decode).map { $0.tombstone(by: nil, role: .server, at: now) }
                    guard !tombstones.isEmpty else { return 0 }
                    try await family.commit(tombstones, into: zone)
                    return tombstones.count
                }
            }
        }
    }
}

extension String {
    /// As a SQL string literal: for the few bounds written into a statement so that it matches an
    /// expression index (dates and instants the server formats itself).
    var sqlLiteral: String { "'" + replacingOccurrences(of: "'", with: "''") + "'" }
}
