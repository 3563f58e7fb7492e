import Foundation

/// Whether a device's tracking works (PROTOCOL §10), as a parent sees it.
public enum TrackingStatus: String, Sendable, Codable, CaseIterable {
    /// Monitoring on, a heartbeat within `HeartbeatRules.staleAfter`.
    case healthy
    /// Monitoring on, no heartbeat for longer.
    case stale
    /// The device says monitoring is off.
    case inactive
    /// It never reported.
    case unknown
}

/// A stretch of a day with no usage data (§10).
public struct UsageGap: Sendable, Equatable {
    public enum Method: String, Sendable, Codable {
        /// Monitoring was on and heartbeats stopped: tracking broke (counts towards the alert).
        case heartbeatStale = "heartbeat_stale"
        /// Two sessions far apart: maybe the device was put down.
        case sessionGap = "session_gap"
    }

    public var start: Date
    public var end: Date
    public var method: Method

    public init(start: Date, end: Date, method: Method) {
        self.start = start
        self.end = end
        self.method = method
    }

    public var durationMinutes: Int { Int((end.timeIntervalSince(start) / 60).rounded(.down)) }
}

/// §10's rules, pure: status, notification sequences, heartbeat and session gaps, and when the
/// `health` record is written again. Heartbeat instants are the server's receipt times: a device's
/// clock may jump, its arrival cannot.
public enum HeartbeatRules {
    /// Healthy while the last heartbeat is at most this old.
    public static let staleAfter: TimeInterval = 120
    /// Two heartbeats further apart than this (monitoring on) are a gap in tracking.
    public static let heartbeatGap: TimeInterval = 300
    /// Two consecutive sessions of a day further apart than this are a session gap.
    public static let sessionGap: TimeInterval = 600
    /// Heartbeat gaps in a local day past this make the day's `tracking` alert.
    public static let trackingAlertMinutes = 15
    /// The `health` record is written again at least this often while heartbeats come.
    public static let recordRefresh: TimeInterval = 300
    /// A heartbeat may be stamped at most this far ahead of the server.
    public static let futureAllowance: TimeInterval = 300

    public static func status(lastHeartbeat: Date?, monitoringActive: Bool, now: Date) -> TrackingStatus {
        guard let lastHeartbeat else { return .unknown }
        guard monitoringActive else { return .inactive }
        return now.timeIntervalSince(lastHeartbeat) <= staleAfter ? .healthy : .stale
    }

    /// What a report's `notificationSequence` says after `previous`: the numbers skipped, and
    /// whether the count restarted (a lower number: the extension restarted). The same number
    /// again (a report sent twice) skips none.
    public static func sequence(previous: Int64?, next: Int64?) -> (missed: Int, reset: Bool) {
        guard let previous, let next else { return (0, false) }
        if next < previous { return (0, true) }
        return (Int(min(max(0, next - previous - 1), Int64(Int32.max))), false)
    }

    /// The heartbeat gap a heartbeat at `now` closes: the time since the one before, when
    /// monitoring was on and it is longer than `heartbeatGap`.
    public static func closedGap(previous: Date?, previousActive: Bool, now: Date) -> UsageGap? {
        guard let previous, previousActive, now.timeIntervalSince(previous) > heartbeatGap else { return nil }
        return UsageGap(start: previous, end: now, method: .heartbeatStale)
    }

    /// The gap still open at `now`: heartbeats stopped longer ago than `heartbeatGap` while
    /// monitoring was on.
    public static func openGap(lastHeartbeat: Date?, monitoringActive: Bool, now: Date) -> UsageGap? {
        closedGap(previous: lastHeartbeat, previousActive: monitoringActive, now: now)
    }

    /// The parts of `gaps` within `day`, in order.
    public static func gaps(_ gaps: [UsageGap], within day: DateInterval) -> [UsageGap] {
        gaps.compactMap { gap in
            let start = max(gap.start, day.start), end = min(gap.end, day.end)
            return start < end ? UsageGap(start: start, end: end, method: gap.method) : nil
        }.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
    }

    /// Whole minutes of heartbeat gaps (session gaps do not count: a child who puts the device
    /// down is no fault).
    public static func heartbeatGapMinutes(_ gaps: [UsageGap]) -> Int {
        Int((gaps.filter { $0.method == .heartbeatStale }.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) } / 60).rounded(.down))
    }

    /// Session gaps of a day: between the end of one session and the start of the next (sessions
    /// merged where they overlap), longer than `sessionGap`.
    public static func sessionGaps(_ sessions: [UsageSession], within day: DateInterval) -> [UsageGap] {
        let spans = sessions.compactMap { session -> (Date, Date)? in
            let start = max(session.sessionStart, day.start), end = min(session.sessionEnd, day.end)
            return start <= end && session.sessionEnd > day.start && session.sessionStart < day.end ? (start, end) : nil
        }.sorted { $0 < $1 }
        var gaps: [UsageGap] = []
        var reach: Date?
        for (start, end) in spans {
            if let reach, start.timeIntervalSince(reach) > sessionGap { gaps.append(UsageGap(start: reach, end: start, method: .sessionGap)) }
            reach = max(reach ?? end, end)
        }
        return gaps
    }

    /// Whether a report must write the `health` record: the status changed, errors came, a gap
    /// closed, or the record is older than `recordRefresh`.
    public static func mustWriteRecord(statusBefore: TrackingStatus, statusAfter: TrackingStatus, newErrors: Int, closedGap: Bool, recordWrittenAt: Date?, now: Date) -> Bool {
        statusBefore != statusAfter || newErrors > 0 || closedGap || recordWrittenAt.map { now.timeIntervalSince($0) >= recordRefresh } ?? true
    }
}
