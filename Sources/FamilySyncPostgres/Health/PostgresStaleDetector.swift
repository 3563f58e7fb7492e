import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The periodic job of device health (§10): devices whose heartbeats stopped turn stale, and
/// those whose gaps today passed 15 minutes get the day's tracking alert.
public struct PostgresStaleDetector: Sendable {
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    /// One pass: turns devices `stale` (a family at a time, under its lock, so that each device
    /// is judged once however many instances run this), writes their `health` records (which
    /// wakes the parents), and makes the tracking alerts due (`HeartbeatRules.StalePass`). Returns
    /// the devices turned stale and the alerts made.
    @discardableResult
    public func run(limit: Int = 500) async throws -> (stale: Int, alerts: [Alert]) {
        let pass = HeartbeatRules.StalePass(now: clock.now())
        let stale = try await turnStale(pass, limit: limit)
        return (stale, try await alertTracking(pass, limit: limit))
    }

    // The statuses stay literals: the partial indexes on `status` match them.

    /// `StalePass.turnsStale`, in SQL.
    func turnStale(_ pass: HeartbeatRules.StalePass, limit: Int) async throws -> Int {
        let (now, staleBefore, logger) = (pass.now, pass.staleBefore, logger)
        let families = try await changeLog.database.rows(
            "SELECT DISTINCT family_id FROM (SELECT family_id FROM device_health WHERE status = 'healthy' AND last_heartbeat_at < \(staleBefore) LIMIT \(limit)) due",
            logger: logger
        ).map { try $0.decode(UUID.self) }
        var stale = 0
        for familyID in families {
            stale += try await changeLog.write(family: familyID, as: .server) { family in
                let devices = try await family.connection.rows(
                    """
                    UPDATE device_health SET status = 'stale' WHERE family_id = \(familyID) AND status = 'healthy' AND last_heartbeat_at < \(staleBefore)
                    RETURNING device_id
                    """,
                    logger: logger
                ).map { try $0.decode(UUID.self) }
                for deviceID in devices {
                    let owner = try await DeviceHealthRows.owner(deviceID, of: familyID, on: family.connection, logger: logger)
                    guard owner.zoneName != nil else { continue }
                    let (date, dayEnd) = HeartbeatRules.day(at: now, in: owner.timeZone)
                    let health = try await DeviceHealthRows.day(date, of: owner, on: family.connection, errorLimit: DeviceHealth.errorsInRecord, now: now, logger: logger)
                    try await family.deriveHealth([(health, recordDue: true, checksTracking: false)], owner: owner, now: now)
                    try await family.connection.rows(
                        "UPDATE device_health SET record_written_at = \(now), record_day_end = \(dayEnd) WHERE family_id = \(familyID) AND device_id = \(deviceID)",
                        logger: logger
                    )
                }
                return devices.count
            }
        }
        return stale
    }

    /// `StalePass.isDueTrackingCheck`, in SQL: the devices are looked at under their family's lock.
    func alertTracking(_ pass: HeartbeatRules.StalePass, limit: Int) async throws -> [Alert] {
        let (now, logger) = (pass.now, logger)
        let candidates = try await changeLog.database.rows(
            """
            SELECT h.family_id, h.device_id FROM device_health h JOIN devices d ON d.family_id = h.family_id AND d.device_id = h.device_id
            WHERE h.status = 'stale' AND h.monitoring_active AND h.last_heartbeat_at < \(pass.openGapBefore) AND d.status = 'active'
              AND (h.tracking_alerted_until IS NULL OR h.tracking_alerted_until <= \(now))
            LIMIT \(limit)
            """,
            logger: logger
        ).map { try $0.decode((UUID, UUID).self) }
        var alerts: [Alert] = []
        for (familyID, devices) in Dictionary(grouping: candidates, by: \.0) {
            alerts += try await changeLog.write(family: familyID, as: .server) { family in
                var made: [Alert] = []
                for (_, deviceID) in devices {
                    let owner = try await DeviceHealthRows.owner(deviceID, of: familyID, on: family.connection, logger: logger)
                    let date = DailySummaryCalculator.day(of: now, in: owner.timeZone)
                    let health = try await DeviceHealthRows.day(date, of: owner, on: family.connection, errorLimit: 0, now: now, logger: logger)
                    made += try await family.deriveHealth([(health, recordDue: false, checksTracking: true)], owner: owner, now: now)
                }
                return made
            }
        }
        return alerts
    }
}
