import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The rows device health reads (§10): the device, its heartbeat state, and a day from all that
/// is kept of it.
enum DeviceHealthRows {
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

    /// What is kept of a device's heartbeats: the state a report is judged by, what its quiet
    /// heartbeats added since the last full one, and the versions it last named.
    struct Stored {
        var state: HeartbeatState
        var pending: HealthTally
        var appVersion: String?
        var osVersion: String?
    }

    /// The heartbeat state, locked until the transaction ends (a report judges it and writes it).
    static func state(_ deviceID: UUID, of familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> Stored? {
        let rows = try await connection.rows(
            """
            SELECT monitoring_active, last_heartbeat_at, memory_usage_mb, last_sequence, status, record_written_at, record_day_end,
                   pending_heartbeats, pending_monitored_seconds, pending_stale_seconds, pending_gaps_60, pending_gaps_120, pending_gaps_300,
                   app_version, os_version
            FROM device_health WHERE family_id = \(familyID) AND device_id = \(deviceID) FOR UPDATE
            """,
            logger: logger
        )
        guard let (active, last, memory, sequence, status, written, date, heartbeats, monitored, stale, within60, within120, within300, app, os) = try rows.decode(
            (Bool, Date, Double?, Int64?, String, Date, Date, Int, Double, Double, Int, Int, Int, String?, String?).self
        ).first else { return nil }
        return Stored(
            state: HeartbeatState(
                monitoringActive: active, lastHeartbeatAt: last, memoryUsageMB: memory, lastSequence: sequence, status: TrackingStatus(rawValue: status) ?? .unknown,
                recordWrittenAt: written, recordDayEnd: date
            ),
            pending: HealthTally(
                heartbeats: heartbeats, monitoredSeconds: monitored, staleSeconds: stale, gaps: [within60, within120, within300], events: 0, failures: 0
            ),
            appVersion: app, osVersion: os
        )
    }

    /// A device's `date` from everything kept: heartbeat state, counters, gaps, sessions, errors.
    static func day(_ date: String, of owner: Owner, on connection: PostgresConnection, errorLimit: Int, now: Date, logger: Logger) async throws -> DeviceHealth {
        guard let bounds = DailySummaryCalculator.interval(of: date, in: owner.timeZone) else { throw DailySummaryCalculator.notADate("date") }
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
            sessions = try await RecordRow.overlapping(
                RecordTypeName.usageRecord, startField: "sessionStart", endField: "sessionEnd", interval: bounds, inZone: zone, family: familyID, on: connection, logger: logger
            ).map { try $0.makeRandomAccess()["fields"].decode(RecordFields.self).value }.compactMap(UsageSession.init(fields:))
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
}
