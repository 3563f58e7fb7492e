import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Device health (PROTOCOL §10): heartbeats in `device_health`, the day's counters, closed
/// heartbeat gaps and the error log in their tables, and the `health` record in the device's zone
/// written from them when a parent would see a difference.
public struct PostgresHealthStore: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    /// `outbox`: push on (§12), the outbox rows of each change written with it.
    public init(database: Database, clock: any WallClock, logger: Logger, outbox: PushOutbox? = nil) {
        self.database = database
        self.changeLog = ChangeLog(database: database, logger: logger, outbox: outbox)
        self.clock = clock
        self.logger = logger
    }

    /// What a report did, for the answer and for the fleet's figures.
    public struct Reported: Sendable {
        public var health: DeviceHealth
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

    /// Takes a tracked device's report. A heartbeat that changes nothing a parent sees (healthy
    /// before and after, or inactive before and after; no gap, no skipped notification, no
    /// error, the record fresh and of today) is one statement, outside the family's lock: its
    /// row lock orders it with the stale detector's update of the same row. Anything else is a
    /// transaction under the family's lock that stores what changed, writes the `health` record
    /// if it must, and makes the day's tracking alert when the heartbeat gaps passed 15 minutes.
    public func report(_ report: HealthReport, by device: AuthenticatedDevice) async throws -> Reported {
        let now = clock.now()
        guard let zone = device.zoneName else { throw FamilySyncError(.accessDenied, "This device is not tracked.") }
        if report.errors.isEmpty, let quiet = try await quietHeartbeat(report, by: device, zone: zone, now: now) {
            return quiet
        }
        let logger = logger
        return try await changeLog.write(family: device.familyID) { family in
            let connection = family.connection
            let owner = try await Self.owner(device.deviceID, of: device.familyID, on: connection, logger: logger)
            let before = try await Self.state(device.deviceID, of: device.familyID, on: connection, logger: logger)
            let date = DailySummaryCalculator.day(of: now, in: owner.timeZone)
            let dayEnd = DailySummaryCalculator.interval(of: date, in: owner.timeZone)?.end ?? now

            let sequence = HeartbeatRules.sequence(previous: before?.lastSequence, next: report.notificationSequence)
            let gap = HeartbeatRules.closedGap(previous: before?.lastHeartbeatAt, previousActive: before?.monitoringActive ?? false, now: now)
            let statusBefore = before.map { $0.status } ?? .unknown
            let statusAfter: TrackingStatus = report.monitoringActive ? .healthy : .inactive

            // The errors not stored before, then the log cut to the newest 100.
            var fresh: [ExtensionError] = []
            if !report.errors.isEmpty {
                // As one jsonb array: PostgresNIO binds no arrays of optionals.
                let rows = JSONB(JSONValue.array(report.errors.map { error in
                    .object([
                        "id": .string(error.id.lowercased), "at": .string(Instant.format(error.timestamp)), "name": .string(error.eventName),
                        "action": .string(error.action), "success": .bool(error.success), "description": error.errorDescription.map(JSONValue.string) ?? .null,
                        "memory": error.memoryUsageMB.map(JSONValue.number) ?? .null,
                    ])
                }))
                let stored = try await connection.rows(
                    """
                    INSERT INTO device_errors (family_id, device_id, error_id, occurred_at, event_name, action, success, description, memory_usage_mb)
                    SELECT \(device.familyID), \(device.deviceID), e.id, e.at, e.name, e.action, e.success, e.description, e.memory
                    FROM jsonb_to_recordset(\(rows)) AS e(id uuid, at timestamptz, name text, action text, success boolean, description text, memory double precision)
                    ON CONFLICT DO NOTHING
                    RETURNING error_id
                    """,
                    logger: logger
                ).map { try $0.decode(UUID.self) }
                fresh = report.errors.filter { stored.contains($0.id) }
                try await connection.rows(
                    """
                    DELETE FROM device_errors WHERE family_id = \(device.familyID) AND device_id = \(device.deviceID) AND error_id IN (
                        SELECT error_id FROM device_errors WHERE family_id = \(device.familyID) AND device_id = \(device.deviceID)
                        ORDER BY occurred_at DESC, error_id DESC OFFSET \(ExtensionError.maximumKept)
                    )
                    """,
                    logger: logger
                )
            }
            if sequence.missed > 0 || sequence.reset {
                try await connection.rows(
                    """
                    INSERT INTO device_health_days (family_id, device_id, date, missed_notifications, sequence_resets)
                    VALUES (\(device.familyID), \(device.deviceID), \(date), \(sequence.missed), \(sequence.reset ? 1 : 0))
                    ON CONFLICT (family_id, device_id, date) DO UPDATE SET
                        missed_notifications = device_health_days.missed_notifications + EXCLUDED.missed_notifications,
                        sequence_resets = device_health_days.sequence_resets + EXCLUDED.sequence_resets
                    """,
                    logger: logger
                )
            }
            if let gap {
                try await connection.rows(
                    """
                    INSERT INTO device_heartbeat_gaps (family_id, device_id, started_at, ended_at)
                    VALUES (\(device.familyID), \(device.deviceID), \(gap.start), \(gap.end)) ON CONFLICT DO NOTHING
                    """,
                    logger: logger
                )
            }
            let writeRecord = HeartbeatRules.mustWriteRecord(
                statusBefore: statusBefore, statusAfter: statusAfter, newErrors: fresh.count, closedGap: gap != nil || sequence.missed > 0 || sequence.reset,
                recordWrittenAt: (before?.recordDayEnd ?? now) > now ? before?.recordWrittenAt : nil, now: now
            )
            let lastSequence = report.notificationSequence ?? before?.lastSequence
            let memory = report.memoryUsageMB ?? before?.memoryUsageMB
            try await connection.rows(
                """
                INSERT INTO device_health (family_id, device_id, monitoring_active, last_heartbeat_at, memory_usage_mb, last_sequence, status, record_written_at, record_day_end)
                VALUES (\(device.familyID), \(device.deviceID), \(report.monitoringActive), \(now), \(memory), \(lastSequence), \(statusAfter.rawValue),
                        \(writeRecord ? now : (before?.recordWrittenAt ?? now)), \(writeRecord ? dayEnd : (before?.recordDayEnd ?? dayEnd)))
                ON CONFLICT (family_id, device_id) DO UPDATE SET
                    monitoring_active = EXCLUDED.monitoring_active, last_heartbeat_at = EXCLUDED.last_heartbeat_at, memory_usage_mb = EXCLUDED.memory_usage_mb,
                    last_sequence = EXCLUDED.last_sequence, status = EXCLUDED.status, record_written_at = EXCLUDED.record_written_at,
                    record_day_end = EXCLUDED.record_day_end
                """,
                logger: logger
            )
            let health = try await Self.day(date, of: owner, on: connection, errorLimit: 10, now: now, logger: logger)
            if writeRecord { try await Self.writeRecord(health, zone: zone, in: family, now: now, logger: logger) }
            // A closed gap may have passed the day's 15 minutes, on each day it touched.
            var alerts: [Alert] = []
            if let gap {
                var days = Set([date])
                var cursor = gap.start
                while cursor < gap.end {
                    days.insert(DailySummaryCalculator.day(of: cursor, in: owner.timeZone))
                    cursor = cursor.addingTimeInterval(3600)
                }
                for day in days.sorted() {
                    let health = day == date ? health : try await Self.day(day, of: owner, on: connection, errorLimit: 0, now: now, logger: logger)
                    if let alert = try await Self.trackingAlert(health, owner: owner, in: family, now: now, logger: logger) { alerts.append(alert) }
                }
            }
            return Reported(
                health: health, quiet: false, sinceLastHeartbeat: before.map { now.timeIntervalSince($0.lastHeartbeatAt) }, missedNotifications: sequence.missed,
                sequenceReset: sequence.reset, newErrors: fresh, alerts: alerts
            )
        }
    }

    /// The one-statement heartbeat: updates the row only while nothing a parent sees changes, and
    /// answers from the `health` record; nil when the report needs the full path.
    func quietHeartbeat(_ report: HealthReport, by device: AuthenticatedDevice, zone: String, now: Date) async throws -> Reported? {
        let sequence = report.notificationSequence
        let rows = try await database.rows(
            """
            WITH before AS (
                SELECT h.family_id, h.device_id, h.last_heartbeat_at FROM device_health h
                WHERE h.family_id = \(device.familyID) AND h.device_id = \(device.deviceID)
                  AND h.monitoring_active = \(report.monitoringActive) AND h.status = \(report.monitoringActive ? "healthy" : "inactive")
                  AND h.last_heartbeat_at >= \(now.addingTimeInterval(-HeartbeatRules.heartbeatGap)) AND h.last_heartbeat_at <= \(now)
                  AND h.record_written_at > \(now.addingTimeInterval(-HeartbeatRules.recordRefresh))
                  AND h.record_day_end > \(now)
                  AND (\(sequence)::bigint IS NULL OR h.last_sequence IS NULL OR \(sequence)::bigint IN (h.last_sequence, h.last_sequence + 1))
                FOR UPDATE OF h
            ), updated AS (
                UPDATE device_health h SET last_heartbeat_at = \(now), memory_usage_mb = COALESCE(\(report.memoryUsageMB), h.memory_usage_mb),
                    last_sequence = COALESCE(\(sequence)::bigint, h.last_sequence)
                FROM before WHERE h.family_id = before.family_id AND h.device_id = before.device_id
                RETURNING h.family_id, h.memory_usage_mb, before.last_heartbeat_at AS previous
            )
            SELECT u.previous, u.memory_usage_mb, r.fields FROM updated u
            JOIN records r ON r.family_id = u.family_id AND r.zone_name = \(zone) AND r.record_name = \(DeviceHealth.recordName) AND NOT r.deleted
            """,
            logger: logger
        )
        guard let (previous, memory, fields) = try rows.decode((Date, Double?, RecordFields).self).first,
            var health = DeviceHealth(fields: fields.value, deviceID: device.deviceID)
        else { return nil }
        health.lastHeartbeatAt = now
        health.heartbeatGapSeconds = 0
        health.memoryUsageMB = memory
        health.asOf = now
        return Reported(health: health, quiet: true, sinceLastHeartbeat: now.timeIntervalSince(previous), missedNotifications: 0, sequenceReset: false, newErrors: [], alerts: [])
    }

    // MARK: - Reads

    /// A device's day (`GET /v1/devices/{id}/health`): for a parent of its family or the device
    /// itself; a device of another family is `NOT_FOUND`.
    public func health(of deviceID: UUID, familyID: UUID, date: String?, errorLimit: Int) async throws -> (health: DeviceHealth, deviceName: String, timeZone: String) {
        let logger = logger
        let now = clock.now()
        return try await database.inSnapshot(logger: logger) { connection in
            let owner = try await Self.owner(deviceID, of: familyID, on: connection, logger: logger)
            let day = date ?? DailySummaryCalculator.day(of: now, in: owner.timeZone)
            return (try await Self.day(day, of: owner, on: connection, errorLimit: errorLimit, now: now, logger: logger), owner.name, owner.timeZoneName)
        }
    }

    // MARK: - The stale detector

    /// Turns devices whose heartbeats stopped `stale` (a family at a time, under its lock, so that
    /// each device is judged once however many instances run this), writes their `health` records
    /// (which wakes the parents), and makes the tracking alerts of devices whose gaps today passed
    /// 15 minutes. Returns the devices turned stale and the alerts made.
    @discardableResult
    public func detectStale(limit: Int = 500) async throws -> (stale: Int, alerts: [Alert]) {
        let now = clock.now()
        let logger = logger
        let staleBefore = now.addingTimeInterval(-HeartbeatRules.staleAfter)
        let families = try await database.rows(
            "SELECT DISTINCT family_id FROM (SELECT family_id FROM device_health WHERE status = 'healthy' AND last_heartbeat_at < \(staleBefore) LIMIT \(limit)) due",
            logger: logger
        ).map { try $0.decode(UUID.self) }
        var stale = 0
        for familyID in families {
            stale += try await changeLog.write(family: familyID) { family in
                let devices = try await family.connection.rows(
                    """
                    UPDATE device_health SET status = 'stale' WHERE family_id = \(familyID) AND status = 'healthy' AND last_heartbeat_at < \(staleBefore)
                    RETURNING device_id
                    """,
                    logger: logger
                ).map { try $0.decode(UUID.self) }
                for deviceID in devices {
                    let owner = try await Self.owner(deviceID, of: familyID, on: family.connection, logger: logger)
                    guard let zone = owner.zoneName else { continue }
                    let date = DailySummaryCalculator.day(of: now, in: owner.timeZone)
                    let dayEnd = DailySummaryCalculator.interval(of: date, in: owner.timeZone)?.end ?? now
                    let health = try await Self.day(date, of: owner, on: family.connection, errorLimit: 10, now: now, logger: logger)
                    try await Self.writeRecord(health, zone: zone, in: family, now: now, logger: logger)
                    try await family.connection.rows(
                        "UPDATE device_health SET record_written_at = \(now), record_day_end = \(dayEnd) WHERE family_id = \(familyID) AND device_id = \(deviceID)",
                        logger: logger
                    )
                }
                return devices.count
            }
        }
        // Stale devices not alerted today whose open gap may have passed 15 minutes.
        let gapBefore = now.addingTimeInterval(-HeartbeatRules.heartbeatGap)
        let candidates = try await database.rows(
            """
            SELECT h.family_id, h.device_id FROM device_health h JOIN devices d ON d.family_id = h.family_id AND d.device_id = h.device_id
            WHERE h.status = 'stale' AND h.monitoring_active AND h.last_heartbeat_at < \(gapBefore) AND d.status = 'active'
              AND (h.tracking_alerted_until IS NULL OR h.tracking_alerted_until <= \(now))
            LIMIT \(limit)
            """,
            logger: logger
        ).map { try $0.decode((UUID, UUID).self) }
        var alerts: [Alert] = []
        for (familyID, devices) in Dictionary(grouping: candidates, by: \.0) {
            alerts += try await changeLog.write(family: familyID) { family in
                var made: [Alert] = []
                for (_, deviceID) in devices {
                    let owner = try await Self.owner(deviceID, of: familyID, on: family.connection, logger: logger)
                    let date = DailySummaryCalculator.day(of: now, in: owner.timeZone)
                    let health = try await Self.day(date, of: owner, on: family.connection, errorLimit: 0, now: now, logger: logger)
                    if let alert = try await Self.trackingAlert(health, owner: owner, in: family, now: now, logger: logger) { made.append(alert) }
                }
                return made
            }
        }
        return (stale, alerts)
    }

    /// Devices with health by their status now (the fleet gauge): stale counted by the heartbeat's
    /// age, not only by the detector's last pass.
    public func countByStatus() async throws -> [TrackingStatus: Int] {
        let staleBefore = clock.now().addingTimeInterval(-HeartbeatRules.staleAfter)
        let rows = try await database.rows(
            """
            SELECT CASE WHEN NOT monitoring_active THEN 'inactive' WHEN last_heartbeat_at < \(staleBefore) THEN 'stale' ELSE 'healthy' END AS status, count(*)::int
            FROM device_health GROUP BY 1
            """,
            logger: logger
        )
        var counts: [TrackingStatus: Int] = [.healthy: 0, .stale: 0, .inactive: 0]
        for row in rows {
            let (status, count) = try row.decode((String, Int).self)
            if let status = TrackingStatus(rawValue: status) { counts[status] = count }
        }
        return counts
    }

    // MARK: - Within a transaction

    /// A device as health needs it.
    struct Owner {
        var deviceID: UUID
        var familyID: UUID
        var name: String
        var timeZone: TimeZone
        /// As the device registered it (Foundation calls UTC "GMT").
        var timeZoneName: String
        var memberID: UUID?
        var zoneName: String?
    }

    struct State {
        var monitoringActive: Bool
        var lastHeartbeatAt: Date
        var memoryUsageMB: Double?
        var lastSequence: Int64?
        var status: TrackingStatus
        var recordWrittenAt: Date
        var recordDayEnd: Date
    }

    static func owner(_ deviceID: UUID, of familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Owner {
        let rows = try await connection.rows(
            "SELECT name, time_zone, member_id, role, tracked FROM devices WHERE family_id = \(familyID) AND device_id = \(deviceID)", logger: logger
        )
        guard let (name, zone, member, role, tracked) = try rows.decode((String, String, UUID?, String, Bool).self).first else {
            throw FamilySyncError.notFound("No such device.")
        }
        let zoneName = DeviceRole(rawValue: role).flatMap { Device.zoneName(of: deviceID, role: $0, tracked: tracked) }
        return Owner(
            deviceID: deviceID, familyID: familyID, name: name, timeZone: TimeZone(identifier: zone) ?? .gmt, timeZoneName: zone, memberID: member, zoneName: zoneName
        )
    }

    static func state(_ deviceID: UUID, of familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> State? {
        let rows = try await connection.rows(
            """
            SELECT monitoring_active, last_heartbeat_at, memory_usage_mb, last_sequence, status, record_written_at, record_day_end
            FROM device_health WHERE family_id = \(familyID) AND device_id = \(deviceID) FOR UPDATE
            """,
            logger: logger
        )
        guard let (active, last, memory, sequence, status, written, date) = try rows.decode((Bool, Date, Double?, Int64?, String, Date, Date).self).first
        else { return nil }
        return State(
            monitoringActive: active, lastHeartbeatAt: last, memoryUsageMB: memory, lastSequence: sequence, status: TrackingStatus(rawValue: status) ?? .unknown,
            recordWrittenAt: written, recordDayEnd: date
        )
    }

    /// A device's `date` from everything kept: heartbeat state, counters, gaps, sessions, errors.
    static func day(_ date: String, of owner: Owner, on connection: PostgresConnection, errorLimit: Int, now: Date, logger: Logger) async throws -> DeviceHealth {
        guard let bounds = DailySummaryCalculator.interval(of: date, in: owner.timeZone) else { throw FamilySyncError.badRequest("date is a date, YYYY-MM-DD.", field: "date") }
        let (familyID, deviceID) = (owner.familyID, owner.deviceID)
        let state = try await connection.rows(
            "SELECT monitoring_active, last_heartbeat_at, memory_usage_mb FROM device_health WHERE family_id = \(familyID) AND device_id = \(deviceID)", logger: logger
        ).decode((Bool, Date, Double?).self).first { _ in true }
        let counters = try await connection.rows(
            "SELECT missed_notifications, sequence_resets FROM device_health_days WHERE family_id = \(familyID) AND device_id = \(deviceID) AND date = \(date)",
            logger: logger
        ).decode((Int, Int).self).first { _ in true }
        let gaps = try await connection.rows(
            """
            SELECT started_at, ended_at FROM device_heartbeat_gaps
            WHERE family_id = \(familyID) AND device_id = \(deviceID) AND ended_at > \(bounds.start) AND started_at < \(bounds.end)
            """,
            logger: logger
        ).map { row in
            let (start, end) = try row.decode((Date, Date).self)
            return UsageGap(start: start, end: end, method: .heartbeatStale)
        }
        var sessions: [UsageSession] = []
        if let zone = owner.zoneName {
            sessions = try await connection.rows(
                """
                SELECT fields FROM records
                WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = 'UsageRecord' AND NOT deleted
                  AND fields ->> 'sessionEnd' >= \(Instant.format(bounds.start)) AND fields ->> 'sessionStart' < \(Instant.format(bounds.end))
                """,
                logger: logger
            ).map { try $0.decode(RecordFields.self).value }.compactMap(UsageSession.init(fields:))
        }
        let errors = try await connection.rows(
            """
            SELECT error_id, occurred_at, event_name, action, success, description, memory_usage_mb FROM device_errors
            WHERE family_id = \(familyID) AND device_id = \(deviceID) AND occurred_at >= \(bounds.start) AND occurred_at < \(bounds.end)
            """,
            logger: logger
        ).map { row in
            let (id, at, name, action, success, description, memory) = try row.decode((UUID, Date, String, String, Bool, String?, Double?).self)
            return ExtensionError(id: id, timestamp: at, eventName: name, action: action, success: success, errorDescription: description, memoryUsageMB: memory)
        }
        return DeviceHealth.day(
            date, in: owner.timeZone, deviceID: deviceID, lastHeartbeatAt: state?.1, monitoringActive: state?.0 ?? false, memoryUsageMB: state?.2,
            missedNotifications: counters?.0 ?? 0, sequenceResets: counters?.1 ?? 0, heartbeatGaps: gaps, sessions: sessions, errors: errors,
            errorLimit: errorLimit, now: now
        )!
    }

    /// Writes the `health` record (server-written, keeping its creation).
    static func writeRecord(_ health: DeviceHealth, zone: String, in family: LockedFamily, now: Date, logger: Logger) async throws {
        let stored = try await RecordRow.record(named: DeviceHealth.recordName, inZone: zone, family: family.id, on: family.connection, logger: logger)
        let record = Record(
            recordName: DeviceHealth.recordName, recordType: "DeviceHealth", fields: health.fields, changeTag: "", deleted: false,
            createdAt: stored?.createdAt ?? now, createdBy: stored?.createdBy ?? health.deviceID, modifiedAt: now, modifiedBy: health.deviceID,
            modifiedRole: .server, clientModifiedAt: now
        )
        try await family.commit([record], into: zone)
    }

    /// The day's tracking alert, made once (its id is the device's and the day's) in the member's
    /// zone, when the day's heartbeat gaps passed 15 minutes.
    static func trackingAlert(_ health: DeviceHealth, owner: Owner, in family: LockedFamily, now: Date, logger: Logger) async throws -> Alert? {
        guard let member = owner.memberID,
            let alert = Alert.tracking(member: member, device: owner.deviceID, deviceName: owner.name, date: health.date, gapMinutes: health.gapMinutesToday, at: now)
        else { return nil }
        let zone = Member.zoneName(of: member)
        let exists = try await family.connection.rows(
            "SELECT 1 FROM records WHERE family_id = \(family.id) AND zone_name = \(zone) AND record_name = \(alert.recordName)", logger: logger
        ).decode(Int.self).first { _ in true }
        // The job looks at the device again the next day (a day already alerted needs nothing more).
        if let end = DailySummaryCalculator.interval(of: health.date, in: owner.timeZone)?.end {
            try await family.connection.rows(
                """
                UPDATE device_health SET tracking_alerted_until = GREATEST(COALESCE(tracking_alerted_until, \(end)), \(end))
                WHERE family_id = \(family.id) AND device_id = \(owner.deviceID)
                """,
                logger: logger
            )
        }
        guard exists == nil else { return nil }
        try await family.raise([alert], by: owner.deviceID, now: now)
        return alert
    }
}
