import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// What device health derives besides its own tables, through the registry (`HealthDay`): the
/// `health` record in the device's zone and the day's tracking alert in its member's.
extension LockedFamily {
    /// Commits what `days` derive for `owner`'s device (`HealthDay.fact`). Returns the tracking
    /// alerts made.
    @discardableResult
    func deriveHealth(_ days: [(health: DeviceHealth, recordDue: Bool, checksTracking: Bool)], owner: DeviceHealthRows.Owner, now: Date) async throws -> [Alert] {
        guard let zone = owner.zoneName, !days.isEmpty else { return [] }
        let commit = try await derive(from: days.map { HealthDay.fact($0.health, recordDue: $0.recordDue, checksTracking: $0.checksTracking, at: now) }, in: zone)
        // The stale detector looks at the device again the day after a day whose gaps call for an
        // alert, made now or before.
        let alerting = days.filter(\.checksTracking).map(\.health).filter { $0.gapMinutesToday > HeartbeatRules.trackingAlertMinutes && owner.memberID != nil }
        if let end = alerting.compactMap({ DailySummaryCalculator.interval(of: $0.date, in: owner.timeZone)?.end }).max() {
            try await connection.rows(
                """
                UPDATE device_health SET tracking_alerted_until = GREATEST(COALESCE(tracking_alerted_until, \(end)), \(end))
                WHERE family_id = \(id) AND device_id = \(owner.deviceID)
                """,
                logger: logger
            )
        }
        return commit.derived.filter { $0.recordType == RecordTypeName.alert }.compactMap { Alert(fields: $0.fields) }
    }
}
