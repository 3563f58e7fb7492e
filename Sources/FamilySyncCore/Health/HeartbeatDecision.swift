import Foundation

/// What a report taken the full way (§10) changes: the counters and the gap to store, the state
/// to keep, whether the `health` record is written, and which days' tracking alerts to look at.
public struct HeartbeatDecision: Sendable, Equatable {
    /// The device's local day at the report, and the instant it ends.
    public var date: String
    public var dayEnd: Date
    public var missedNotifications: Int
    public var sequenceReset: Bool
    public var closedGap: UsageGap?
    public var statusBefore: TrackingStatus
    public var statusAfter: TrackingStatus
    public var writesRecord: Bool
    /// The state to keep.
    public var after: HeartbeatState
    /// Seconds since the heartbeat before (nil for the first).
    public var sinceLastHeartbeat: TimeInterval?
    /// The days whose heartbeat gaps the closed gap may have taken past 15 minutes, in order
    /// (none without a gap).
    public var alertDays: [String]

    /// Whether the notification sequence says something a parent sees.
    public var sequenceChanged: Bool { missedNotifications > 0 || sequenceReset }
}

extension HeartbeatRules {
    /// The local day of `now` in `timeZone`, and its end (`now` for a day the zone cannot name).
    public static func day(at now: Date, in timeZone: TimeZone) -> (date: String, end: Date) {
        let date = DailySummaryCalculator.day(of: now, in: timeZone)
        return (date, DailySummaryCalculator.interval(of: date, in: timeZone)?.end ?? now)
    }

    /// The local days a gap touches, from its start's to its end's, in order.
    public static func days(touchedBy gap: UsageGap, in timeZone: TimeZone) -> [String] {
        let first = DailySummaryCalculator.dayNumber(of: gap.start, in: timeZone)
        return (first...max(first, DailySummaryCalculator.dayNumber(of: gap.end, in: timeZone))).map(DailySummaryCalculator.format)
    }

    /// A report at `now` after `before` (nil: the device's first). `newErrors`: how many of its
    /// errors were not stored before, which only the store can tell (a report sent again repeats them).
    public static func decide(before: HeartbeatState?, report: HealthReport, newErrors: Int, in timeZone: TimeZone, now: Date) -> HeartbeatDecision {
        let (date, dayEnd) = day(at: now, in: timeZone)
        let sequence = sequence(previous: before?.lastSequence, next: report.notificationSequence)
        let gap = closedGap(previous: before?.lastHeartbeatAt, previousActive: before?.monitoringActive ?? false, now: now)
        let statusBefore = before?.status ?? .unknown
        let statusAfter: TrackingStatus = report.monitoringActive ? .healthy : .inactive
        // A record of a day that has ended is written again whatever its age.
        let writes = mustWriteRecord(
            statusBefore: statusBefore, statusAfter: statusAfter, newErrors: newErrors, closedGap: gap != nil || sequence.missed > 0 || sequence.reset,
            recordWrittenAt: (before?.recordDayEnd ?? now) > now ? before?.recordWrittenAt : nil, now: now
        )
        let after = HeartbeatState(
            monitoringActive: report.monitoringActive, lastHeartbeatAt: now, memoryUsageMB: report.memoryUsageMB ?? before?.memoryUsageMB,
            lastSequence: report.notificationSequence ?? before?.lastSequence, status: statusAfter,
            recordWrittenAt: writes ? now : (before?.recordWrittenAt ?? now), recordDayEnd: writes ? dayEnd : (before?.recordDayEnd ?? dayEnd)
        )
        return HeartbeatDecision(
            date: date, dayEnd: dayEnd, missedNotifications: sequence.missed, sequenceReset: sequence.reset, closedGap: gap, statusBefore: statusBefore,
            statusAfter: statusAfter, writesRecord: writes, after: after, sinceLastHeartbeat: before.map { now.timeIntervalSince($0.lastHeartbeatAt) },
            alertDays: gap.map { Array(Set(days(touchedBy: $0, in: timeZone) + [date])).sorted() } ?? []
        )
    }
}
