import Foundation

/// What a device's reports add to its day for the operator's weekly tracking report (PROTOCOL
/// §10.1): how many heartbeats came, the time between them while the device said it was
/// monitoring, the part of that time past the stale mark (the seed's "stale in under 2 % of
/// checks" is that part's share), those intervals by length, and the extension's events.
public struct HealthTally: Sendable, Equatable {
    public var heartbeats = 0
    public var monitoredSeconds: Double = 0
    public var staleSeconds: Double = 0
    /// Intervals between heartbeats while monitoring, by `gapBounds`, the last for longer ones.
    public var gaps = [Int](repeating: 0, count: HealthTally.gapBounds.count + 1)
    public var events = 0
    public var failures = 0

    /// The buckets' upper bounds in seconds: up to 60, 120, 300, 900, 3600, and longer.
    public static let gapBounds: [TimeInterval] = [60, 120, 300, 900, 3600]

    public init() {}

    public init(heartbeats: Int, monitoredSeconds: Double, staleSeconds: Double, gaps: [Int], events: Int, failures: Int) {
        self.heartbeats = heartbeats
        self.monitoredSeconds = monitoredSeconds
        self.staleSeconds = staleSeconds
        // The device's row keeps three buckets (a quiet heartbeat's interval is at most 300 s).
        self.gaps = Array((gaps + [Int](repeating: 0, count: Self.gapBounds.count + 1)).prefix(Self.gapBounds.count + 1))
        self.events = events
        self.failures = failures
    }

    public var isEmpty: Bool { self == HealthTally() }

    /// The most a count of the store holds (its columns are 32-bit): sums stop there, so that no
    /// run of heartbeats can overflow one.
    public static let maximumCount = Int(Int32.max)

    /// Each count held to `maximumCount` (the store's quiet heartbeats may have taken one there).
    public var saturated: HealthTally {
        func held(_ count: Int) -> Int { min(max(count, 0), Self.maximumCount) }
        return HealthTally(
            heartbeats: held(heartbeats), monitoredSeconds: monitoredSeconds, staleSeconds: staleSeconds, gaps: gaps.map(held), events: held(events),
            failures: held(failures)
        )
    }

    /// A heartbeat `interval` seconds after the one before (nil: the device's first), whose state
    /// said monitoring was on (`monitoring`): an interval while it was off is nobody's gap.
    public mutating func heartbeat(after interval: TimeInterval?, monitoring: Bool) {
        heartbeats += 1
        guard let interval, monitoring, interval >= 0 else { return }
        monitoredSeconds += interval
        staleSeconds += max(0, interval - HeartbeatRules.staleAfter)
        gaps[Self.bucket(of: interval)] += 1
    }

    /// The extension's events a report carried for the first time.
    public mutating func events(_ errors: [ExtensionError]) {
        events += errors.count
        failures += errors.filter { !$0.success }.count
    }

    public static func bucket(of interval: TimeInterval) -> Int {
        gapBounds.firstIndex { interval <= $0 } ?? gapBounds.count
    }

    public static func + (left: HealthTally, right: HealthTally) -> HealthTally {
        HealthTally(
            heartbeats: left.heartbeats + right.heartbeats, monitoredSeconds: left.monitoredSeconds + right.monitoredSeconds,
            staleSeconds: left.staleSeconds + right.staleSeconds, gaps: zip(left.gaps, right.gaps).map(+), events: left.events + right.events,
            failures: left.failures + right.failures
        )
    }
}

extension HeartbeatRules {
    /// What a report taken the full way adds to the days' figures, by local date in order: this
    /// report's heartbeat, its interval's length and its new events on its own day, and the
    /// interval's monitored and stale time on each day it touches (so a silence across midnight,
    /// or across a week's end, counts where it happened); and the quiet heartbeats since the last
    /// full one (`pending`, kept on the device's row by the one-statement path) on the day of the
    /// heartbeat before (quiet heartbeats never cross the `health` record's day).
    public static func tallies(
        before: HeartbeatState?, pending: HealthTally, newErrors: [ExtensionError], in timeZone: TimeZone, now: Date
    ) -> [(date: String, tally: HealthTally)] {
        let today = day(at: now, in: timeZone).date
        var days: [String: HealthTally] = [:]
        var own = HealthTally()
        own.heartbeat(after: before.map { now.timeIntervalSince($0.lastHeartbeatAt) }, monitoring: before?.monitoringActive ?? false)
        own.events(newErrors)
        // The interval's time on the local days before today moves to them.
        if let before, before.monitoringActive, now >= before.lastHeartbeatAt {
            let last = before.lastHeartbeatAt
            for date in self.days(touchedBy: UsageGap(start: last, end: now, method: .heartbeatStale), in: timeZone) where date != today {
                guard let bounds = DailySummaryCalculator.interval(of: date, in: timeZone) else { continue }
                let monitored = overlap(last, now, bounds), stale = overlap(last.addingTimeInterval(staleAfter), now, bounds)
                days[date, default: HealthTally()].monitoredSeconds += monitored
                days[date, default: HealthTally()].staleSeconds += stale
                own.monitoredSeconds -= monitored
                own.staleSeconds -= stale
            }
        }
        days[today] = own
        if let before, !pending.isEmpty {
            let earlier = day(at: before.lastHeartbeatAt, in: timeZone).date
            days[earlier, default: HealthTally()] = days[earlier, default: HealthTally()] + pending
        }
        return days.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Seconds of `start…end` inside `bounds` (none when `start` is past `end`).
    static func overlap(_ start: Date, _ end: Date, _ bounds: DateInterval) -> TimeInterval {
        max(0, min(end, bounds.end).timeIntervalSince(max(start, bounds.start)))
    }
}
