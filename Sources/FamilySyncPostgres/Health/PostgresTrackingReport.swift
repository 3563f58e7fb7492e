import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The operator's weekly tracking report (PROTOCOL §10.1), read across every family in one
/// snapshot: the days of the week from `device_health_days`, and from `device_health` what is
/// not in them yet, for a device whose last heartbeat fell in the week: its quiet heartbeats not
/// folded in (at most 5 minutes' worth), and its silence so far if it is stale, up to the week's
/// end, which no heartbeat has closed yet. Sums are 64-bit: a week of 100,000 devices'
/// heartbeats passes 2^31.
public struct PostgresTrackingReport: Sendable {
    let database: Database
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        database = changeLog.database
        self.clock = clock
        self.logger = logger
    }

    public func report(for week: ISOWeek) async throws -> TrackingReport {
        let now = clock.now()
        let (dates, start, end) = (week.dates, week.start, week.end)
        let staleAfter = HeartbeatRules.staleAfter
        let logger = logger
        let rows = try await database.inSnapshot(logger: logger) { connection in
            try await connection.rows(
                """
                WITH days AS (
                    SELECT h.family_id, h.device_id, d.platform, h.app_version AS app, h.os_version AS os, h.heartbeats, h.monitored_seconds, h.stale_seconds,
                           h.gaps_60, h.gaps_120, h.gaps_300, h.gaps_900, h.gaps_3600, h.gaps_longer, h.events, h.failures,
                           h.missed_notifications, h.sequence_resets
                    FROM device_health_days h JOIN devices d ON d.family_id = h.family_id AND d.device_id = h.device_id
                    WHERE h.date >= \(dates.first!) AND h.date <= \(dates.last!)
                    UNION ALL
                    SELECT s.family_id, s.device_id, d.platform, s.app_version, s.os_version,
                           s.pending_heartbeats,
                           s.pending_monitored_seconds
                             + CASE WHEN open AND d.status = 'active' THEN greatest(0, extract(epoch FROM least(\(now)::timestamptz, \(end)) - greatest(s.last_heartbeat_at, \(start)))::float8) ELSE 0 END,
                           s.pending_stale_seconds
                             + CASE WHEN open AND d.status = 'active' THEN greatest(0, extract(epoch FROM least(\(now)::timestamptz, \(end))
                                 - greatest(s.last_heartbeat_at + make_interval(secs => \(staleAfter)), \(start)))::float8) ELSE 0 END,
                           s.pending_gaps_60, s.pending_gaps_120, s.pending_gaps_300,
                           0, 0, 0, 0, 0, 0, 0
                    FROM device_health s JOIN devices d ON d.family_id = s.family_id AND d.device_id = s.device_id,
                         LATERAL (SELECT s.monitoring_active AND s.last_heartbeat_at < \(now)::timestamptz - make_interval(secs => \(staleAfter)) AS open) o
                    -- What is on the row, of a last heartbeat in the week: quiet heartbeats not
                    -- folded in, and a silence still open (an active device's), up to the week's end.
                    WHERE s.last_heartbeat_at >= \(start) AND s.last_heartbeat_at < \(end)
                      AND (s.pending_heartbeats > 0 OR (o.open AND d.status = 'active'))
                )
                SELECT GROUPING(platform, app, os)::int, platform, app, os, count(DISTINCT (family_id, device_id))::bigint,
                       sum(heartbeats)::bigint, sum(monitored_seconds)::float8, sum(stale_seconds)::float8,
                       sum(gaps_60)::bigint, sum(gaps_120)::bigint, sum(gaps_300)::bigint, sum(gaps_900)::bigint, sum(gaps_3600)::bigint, sum(gaps_longer)::bigint,
                       sum(events)::bigint, sum(failures)::bigint, sum(missed_notifications)::bigint, sum(sequence_resets)::bigint
                FROM days GROUP BY GROUPING SETS ((platform, app, os), (platform, app), ())
                """,
                logger: logger
            )
        }
        let decoded = try rows.map { row -> TrackingReport.Row in
            let (grouping, platform, app, os, devices, heartbeats, monitored, stale, g60, g120, g300, g900, g3600, longer, events, failures, missed, resets) =
                try row.decode((Int, String?, String?, String?, Int, Int?, Double?, Double?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?).self)
            let tally = HealthTally(
                heartbeats: heartbeats ?? 0, monitoredSeconds: monitored ?? 0, staleSeconds: stale ?? 0,
                gaps: [g60, g120, g300, g900, g3600, longer].map { $0 ?? 0 }, events: events ?? 0, failures: failures ?? 0
            )
            // GROUPING's bits, platform first: 0 every column grouped, 1 without os, 7 none.
            let level: TrackingReport.Row.Level = grouping == 0 ? .system : grouping == 1 ? .app : .fleet
            return TrackingReport.Row(
                level: level, platform: platform, appVersion: app, osVersion: os,
                figures: .init(devices: devices, tally: tally, missedNotifications: missed ?? 0, sequenceResets: resets ?? 0)
            )
        }
        return TrackingReport(week: week, rows: decoded)
    }
}
