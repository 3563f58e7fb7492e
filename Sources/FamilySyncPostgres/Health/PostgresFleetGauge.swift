import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The fleet's tracking health: devices with health by their status now, across the database.
public struct PostgresFleetGauge: Sendable {
    let database: Database
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        database = changeLog.database
        self.clock = clock
        self.logger = logger
    }

    /// Stale counted by the heartbeat's age (as `HeartbeatRules.status` judges it), not only by
    /// the detector's last pass.
    public func countByStatus() async throws -> [TrackingStatus: Int] {
        let staleBefore = HeartbeatRules.staleBefore(clock.now())
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
}
