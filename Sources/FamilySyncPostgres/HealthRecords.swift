import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// What device health writes besides its own tables: the `health` record in the device's zone and
/// the day's tracking alert in its member's.
extension LockedFamily {
    /// Writes the `health` record (server-written, keeping its creation).
    func writeHealthRecord(_ health: DeviceHealth, zone: String, now: Date) async throws {
        let stored = try await RecordRow.record(named: DeviceHealth.recordName, inZone: zone, family: id, on: connection, logger: logger)
        let record = Record(
            recordName: DeviceHealth.recordName, recordType: "DeviceHealth", fields: health.fields, changeTag: "", deleted: false,
            createdAt: stored?.createdAt ?? now, createdBy: stored?.createdBy ?? health.deviceID, modifiedAt: now, modifiedBy: health.deviceID,
            modifiedRole: .server, clientModifiedAt: now
        )
        try await commit([record], into: zone)
    }

    /// The day's tracking alert, made once (its id is the device's and the day's) in the member's
    /// zone, when the day's heartbeat gaps passed 15 minutes.
    func trackingAlert(_ health: DeviceHealth, owner: DeviceHealthRows.Owner, now: Date) async throws -> Alert? {
        guard let member = owner.memberID,
            let alert = Alert.tracking(member: member, device: owner.deviceID, deviceName: owner.name, date: health.date, gapMinutes: health.gapMinutesToday, at: now)
        else { return nil }
        let zone = Member.zoneName(of: member)
        let exists = try await connection.rows(
            "SELECT 1 FROM records WHERE family_id = \(id) AND zone_name = \(zone) AND record_name = \(alert.recordName)", logger: logger
        ).decode(Int.self).first { _ in true }
        // The job looks at the device again the next day (a day already alerted needs nothing more).
        if let end = DailySummaryCalculator.interval(of: health.date, in: owner.timeZone)?.end {
            try await connection.rows(
                """
                UPDATE device_health SET tracking_alerted_until = GREATEST(COALESCE(tracking_alerted_until, \(end)), \(end))
                WHERE family_id = \(id) AND device_id = \(owner.deviceID)
                """,
                logger: logger
            )
        }
        guard exists == nil else { return nil }
        try await raise([alert], by: owner.deviceID, now: now)
        return alert
    }
}
