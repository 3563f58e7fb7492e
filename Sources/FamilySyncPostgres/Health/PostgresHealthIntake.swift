import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Tracked devices' reports (PROTOCOL §10): heartbeats in `device_health`, the day's counters,
/// closed heartbeat gaps and the error log in their tables, and the `health` record in the
/// device's zone written from them when a parent would see a difference.
public struct PostgresHealthIntake: Sendable {
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger
    /// Whether the quiet heartbeat runs as a named prepared statement (`RowStatement`).
    let preparedStatements: Bool

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger, preparedStatements: Bool = true) {
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
        self.preparedStatements = preparedStatements
    }

    /// What a report did, for the answer and for the fleet's figures.
    public struct Reported: Sendable {
        /// The device's day after the report; nil when not asked for (`answering` false) and the
        /// quiet path took the heartbeat.
        public var health: DeviceHealth?
        /// Taken by the one-statement path (a heartbeat that changed nothing a parent sees).
        public var quiet: Bool
        /// Seconds since the heartbeat before (nil for the first).
        public var sinceLastHeartbeat: TimeInterval?
        public var missedNotifications: Int
        public var sequenceReset: Bool
        /// The errors stored for the first time.
        public var newErrors: [ExtensionError]
        public var alerts: [Alert]
    }

    /// Takes a tracked device's report. A heartbeat that changes nothing a parent sees
    /// (`HeartbeatRules.QuietHeartbeat`) is one statement, outside the family's lock: its row lock
    /// orders it with the stale detector's update of the same row. Anything else is a transaction
    /// under the family's lock that stores what changed (`HeartbeatRules.decide`), writes the
    /// `health` record if it must, and makes the day's tracking alert when the heartbeat gaps
    /// passed 15 minutes.
    /// `answering` false: the caller does not need the day (a poll's heartbeat, PROTOCOL §6), so a
    /// quiet heartbeat does not read the `health` record back.
    public func report(_ report: HealthReport, by device: AuthenticatedDevice, answering: Bool = true, as writer: ChangeWriter) async throws -> Reported {
        let now = clock.now()
        guard let zone = device.zoneName else { throw FamilySyncError(.accessDenied, "This device is not tracked.") }
        if report.errors.isEmpty,
            let quiet = try await quietHeartbeat(HeartbeatRules.QuietHeartbeat(report, now: now), by: device, zone: zone, answering: answering)
        {
            return quiet
        }
        let logger = logger
        return try await changeLog.write(family: device.familyID, as: writer) { family in
            let connection = family.connection
            let owner = try await DeviceHealthRows.owner(device.deviceID, of: device.familyID, on: connection, logger: logger)
            let stored = try await DeviceHealthRows.state(device.deviceID, of: device.familyID, on: connection, logger: logger)
            let before = stored?.state
            let fresh = try await Self.store(report.errors, of: device, on: connection, logger: logger)
            let decision = HeartbeatRules.decide(before: before, report: report, newErrors: fresh.count, in: owner.timeZone, now: now)
            let tallies = HeartbeatRules.tallies(before: before, pending: stored?.pending ?? HealthTally(), newErrors: fresh, in: owner.timeZone, now: now)
            let versions = (app: report.appVersion ?? stored?.appVersion, os: report.osVersion ?? stored?.osVersion)
            try await Self.store(decision, tallies: tallies, versions: versions, of: device, on: connection, logger: logger)
            let health = try await DeviceHealthRows.day(decision.date, of: owner, on: connection, errorLimit: DeviceHealth.errorsInRecord, now: now, logger: logger)
            // The day's record when due, and each day a closed gap touched, whose gaps may have
            // passed the day's 15 minutes (its tracking alert).
            var days: [(health: DeviceHealth, recordDue: Bool, checksTracking: Bool)] = []
            for day in decision.alertDays {
                let health = day == decision.date ? health : try await DeviceHealthRows.day(day, of: owner, on: connection, errorLimit: 0, now: now, logger: logger)
                days.append((health, day == decision.date && decision.writesRecord, true))
            }
            if decision.writesRecord && !decision.alertDays.contains(decision.date) { days.append((health, true, false)) }
            let alerts = try await family.deriveHealth(days, owner: owner, now: now)
            return Reported(
                health: health, quiet: false, sinceLastHeartbeat: decision.sinceLastHeartbeat, missedNotifications: decision.missedNotifications,
                sequenceReset: decision.sequenceReset, newErrors: fresh, alerts: alerts
            )
        }
    }

    /// The one-statement heartbeat (`QuietHeartbeatStatement`): updates the row only while `quiet`
    /// admits it, and answers from the `health` record; nil when the report needs the full path.
    func quietHeartbeat(_ quiet: HeartbeatRules.QuietHeartbeat, by device: AuthenticatedDevice, zone: String, answering: Bool) async throws -> Reported? {
        let statement = QuietHeartbeatStatement(quiet: quiet, familyID: device.familyID, deviceID: device.deviceID, zone: zone, answering: answering)
        let (logger, prepared) = (logger, preparedStatements)
        let rows = try await changeLog.database.leasing { connection in
            var rows: [PostgresRow] = []
            try await statement.forEachRow(on: connection, prepared: prepared, logger: logger) { rows.append($0) }
            return rows
        }
        guard let (previous, memory, fields) = try rows.decode((Date, Double?, RecordFields?).self).first else { return nil }
        var health: DeviceHealth?
        if answering {
            // The stored record answers; one that no longer reads takes the full path.
            guard let fields, let record = DeviceHealth(fields: fields.value, deviceID: device.deviceID) else { return nil }
            health = quiet.answer(from: record, memoryUsageMB: memory)
        }
        return Reported(
            health: health, quiet: true, sinceLastHeartbeat: quiet.now.timeIntervalSince(previous),
            missedNotifications: 0, sequenceReset: false, newErrors: [], alerts: []
        )
    }

    /// Stores the errors not stored before and cuts the log to the newest 100; returns the new ones.
    static func store(_ errors: [ExtensionError], of device: AuthenticatedDevice, on connection: PostgresConnection, logger: Logger) async throws -> [ExtensionError] {
        guard !errors.isEmpty else { return [] }
        // As one jsonb array: PostgresNIO binds no arrays of optionals.
        let rows = JSONB(JSONValue.array(errors.map { error in
            .object([
                "id": .string(error.id.lowercased), "at": .string(Instant.format(error.timestamp)), "name": .string(error.eventName),
                "action": .string(error.action), "success": .bool(error.success), "description": error.errorDescription.map(JSONValue.string) ?? .null,
                "memory": error.memoryUsageMB.map(JSONValue.number) ?? .null,
            ])
        }))
        let stored = try await connection.rows(
            """
            INSERT INTO device_errors (family_id, device_id, error_id, occurred_at, event_name, action, success, description, memory_usage_mb)
            SELECT f.family_id, \(device.deviceID), e.id, e.at, e.name, e.action, e.success, e.description, e.memory
            FROM families f
            CROSS JOIN jsonb_to_recordset(\(rows)) AS e(id uuid, at timestamptz, name text, action text, success boolean, description text, memory double precision)
            WHERE f.family_id = \(device.familyID)
            ON CONFLICT DO NOTHING
            RETURNING error_id
            """,
            logger: logger
        ).map { try $0.decode(UUID.self) }
        try await connection.rows(
            """
            DELETE FROM device_errors WHERE family_id = \(device.familyID) AND device_id = \(device.deviceID) AND error_id IN (
                SELECT error_id FROM device_errors WHERE family_id = \(device.familyID) AND device_id = \(device.deviceID)
                ORDER BY occurred_at DESC, error_id DESC OFFSET \(ExtensionError.maximumKept)
            )
            """,
            logger: logger
        )
        return errors.filter { stored.contains($0.id) }
    }

    /// Stores what `decision` says: the days' counters and figures (`tallies`, with the quiet
    /// heartbeats' pending ones folded in), the closed gap, the state after (pending emptied).
    static func store(
        _ decision: HeartbeatDecision, tallies: [(date: String, tally: HealthTally)], versions: (app: String?, os: String?), of device: AuthenticatedDevice,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        // Every count stops at HealthTally.maximumCount (the columns are 32-bit): what is added
        // is held to it, and each sum too, so that no run of heartbeats overflows a day.
        let top = HealthTally.maximumCount
        for (date, added) in tallies {
            let today = date == decision.date
            let missed = today ? min(decision.missedNotifications, top) : 0, resets = today && decision.sequenceReset ? 1 : 0
            let tally = added.saturated
            let gaps = tally.gaps
            try await connection.rows(
                """
                INSERT INTO device_health_days (family_id, device_id, date, missed_notifications, sequence_resets, heartbeats, monitored_seconds, stale_seconds,
                    gaps_60, gaps_120, gaps_300, gaps_900, gaps_3600, gaps_longer, events, failures, app_version, os_version)
                VALUES (\(device.familyID), \(device.deviceID), \(date), \(missed), \(resets), \(tally.heartbeats), \(tally.monitoredSeconds), \(tally.staleSeconds),
                    \(gaps[0]), \(gaps[1]), \(gaps[2]), \(gaps[3]), \(gaps[4]), \(gaps[5]), \(tally.events), \(tally.failures), \(versions.app), \(versions.os))
                ON CONFLICT (family_id, device_id, date) DO UPDATE SET
                    missed_notifications = least(device_health_days.missed_notifications::bigint + EXCLUDED.missed_notifications, \(top)),
                    sequence_resets = least(device_health_days.sequence_resets::bigint + EXCLUDED.sequence_resets, \(top)),
                    heartbeats = least(device_health_days.heartbeats::bigint + EXCLUDED.heartbeats, \(top)),
                    monitored_seconds = device_health_days.monitored_seconds + EXCLUDED.monitored_seconds,
                    stale_seconds = device_health_days.stale_seconds + EXCLUDED.stale_seconds,
                    gaps_60 = least(device_health_days.gaps_60::bigint + EXCLUDED.gaps_60, \(top)),
                    gaps_120 = least(device_health_days.gaps_120::bigint + EXCLUDED.gaps_120, \(top)),
                    gaps_300 = least(device_health_days.gaps_300::bigint + EXCLUDED.gaps_300, \(top)),
                    gaps_900 = least(device_health_days.gaps_900::bigint + EXCLUDED.gaps_900, \(top)),
                    gaps_3600 = least(device_health_days.gaps_3600::bigint + EXCLUDED.gaps_3600, \(top)),
                    gaps_longer = least(device_health_days.gaps_longer::bigint + EXCLUDED.gaps_longer, \(top)),
                    events = least(device_health_days.events::bigint + EXCLUDED.events, \(top)),
                    failures = least(device_health_days.failures::bigint + EXCLUDED.failures, \(top)),
                    app_version = COALESCE(EXCLUDED.app_version, device_health_days.app_version),
                    os_version = COALESCE(EXCLUDED.os_version, device_health_days.os_version)
                """,
                logger: logger
            )
        }
        if let gap = decision.closedGap {
            try await connection.rows(
                """
                INSERT INTO device_heartbeat_gaps (family_id, device_id, started_at, ended_at)
                VALUES (\(device.familyID), \(device.deviceID), \(gap.start), \(gap.end)) ON CONFLICT DO NOTHING
                """,
                logger: logger
            )
        }
        let after = decision.after
        try await connection.rows(
            """
            INSERT INTO device_health (family_id, device_id, monitoring_active, last_heartbeat_at, memory_usage_mb, last_sequence, status, record_written_at, record_day_end,
                                       app_version, os_version)
            VALUES (\(device.familyID), \(device.deviceID), \(after.monitoringActive), \(after.lastHeartbeatAt), \(after.memoryUsageMB), \(after.lastSequence),
                    \(after.status.rawValue), \(after.recordWrittenAt), \(after.recordDayEnd), \(versions.app), \(versions.os))
            ON CONFLICT (family_id, device_id) DO UPDATE SET
                monitoring_active = EXCLUDED.monitoring_active, last_heartbeat_at = EXCLUDED.last_heartbeat_at, memory_usage_mb = EXCLUDED.memory_usage_mb,
                last_sequence = EXCLUDED.last_sequence, status = EXCLUDED.status, record_written_at = EXCLUDED.record_written_at,
                record_day_end = EXCLUDED.record_day_end, app_version = EXCLUDED.app_version, os_version = EXCLUDED.os_version,
                pending_heartbeats = 0, pending_monitored_seconds = 0, pending_stale_seconds = 0, pending_gaps_60 = 0, pending_gaps_120 = 0, pending_gaps_300 = 0
            """,
            logger: logger
        )
    }
}
