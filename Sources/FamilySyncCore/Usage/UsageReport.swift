import Foundation

/// A parent's report of a child's usage (PROTOCOL §7.4): totals per day or week and category, and
/// the apps used most, built from the daily summaries of the range (days without usage count as
/// zeros). Pure; the CSV is RFC 4180.
public struct UsageReport: Sendable, Equatable {
    public enum Granularity: String, Sendable, CaseIterable {
        case day, week
    }

    public struct Period: Sendable, Equatable {
        /// First and last local date of the period (a week runs Monday to Sunday, cut to the range).
        public var start: String
        public var end: String
        public var totalLearningSeconds = 0
        public var totalRewardSeconds = 0
        public var totalPointsEarned = 0
        /// Every app used in the period, most used first.
        public var apps: [DailySummary.App] = []
        /// A member's report only: seconds by platform, most used first.
        public var byPlatform: [MemberDay.PlatformSeconds] = []
        /// Every app's seconds, neutral categories' included.
        public var totalSeconds = 0
        /// Pickups of every app (§9.1); 0 when the devices report none.
        public var totalPickups = 0
    }

    public var granularity: Granularity
    public var from: String
    public var to: String
    public var periods: [Period]
    public var total: Period

    /// The longest range a report (or a summaries read) covers.
    public static let maximumDays = 366
    public static let topAppCount = 5

    /// The dates from `from` to `to`, both included; nil when either is malformed, `to` is before
    /// `from`, or the range is longer than `maximumDays`.
    public static func dates(from: String, to: String) -> [String]? {
        guard let start = DailySummaryCalculator.interval(of: from, in: .gmt), let end = DailySummaryCalculator.interval(of: to, in: .gmt),
            start.start <= end.start
        else { return nil }
        let count = Int((end.start.timeIntervalSince(start.start) / 86_400).rounded()) + 1
        guard count <= maximumDays else { return nil }
        return (0..<count).map { DailySummaryCalculator.day(of: start.start.addingTimeInterval(TimeInterval($0) * 86_400), in: .gmt) }
    }

    /// `summaries` holds the stored ones by date; the others are zeros.
    public init(summaries: [String: DailySummary], dates: [String], granularity: Granularity) {
        self.init(dates: dates, granularity: granularity) { period, date in
            if let summary = summaries[date] { period.add(summary) }
        }
    }

    /// A member's report (§8): the member's days across their devices, with each period's seconds
    /// by platform.
    public init(memberDays: [MemberDay], granularity: Granularity) {
        let days = Dictionary(memberDays.map { ($0.date, $0) }, uniquingKeysWith: { first, _ in first })
        self.init(dates: memberDays.map(\.date), granularity: granularity) { period, date in
            guard let day = days[date] else { return }
            period.add(apps: day.byApp, learning: day.totalLearningSeconds, reward: day.totalRewardSeconds, points: day.totalPointsEarned)
            period.add(day.byPlatform)
        }
    }

    private init(dates: [String], granularity: Granularity, adding add: (inout Period, String) -> Void) {
        self.granularity = granularity
        from = dates.first ?? ""
        to = dates.last ?? ""
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = .gmt
        var periods: [Period] = []
        for date in dates {
            let startsPeriod: Bool
            switch granularity {
            case .day:
                startsPeriod = true
            case .week:
                let instant = DailySummaryCalculator.interval(of: date, in: .gmt)!.start
                startsPeriod = periods.isEmpty || calendar.component(.weekday, from: instant) == 2
            }
            if startsPeriod { periods.append(Period(start: date, end: date)) }
            periods[periods.count - 1].end = date
            add(&periods[periods.count - 1], date)
        }
        self.periods = periods
        var total = Period(start: from, end: to)
        for period in periods {
            total.add(apps: period.apps, learning: period.totalLearningSeconds, reward: period.totalRewardSeconds, points: period.totalPointsEarned)
            total.add(period.byPlatform)
        }
        self.total = total
    }

    /// One row per period and app (a period without usage has one row with the app columns empty).
    public var csv: String {
        var lines = ["period_start,period_end,logical_id,display_name,category,seconds,points,pickups"]
        for period in periods {
            if period.apps.isEmpty { lines.append("\(period.start),\(period.end),,,,0,0,0") }
            for app in period.apps {
                lines.append([period.start, period.end, app.logicalID, app.displayName, app.category.rawValue, "\(app.seconds)", "\(app.points)", "\(app.pickups)"].map(Self.csvField).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A member's report as CSV: per period, one row per platform, then one per app (`breakdown`
    /// says which; a period without usage has its platforms' rows at zero).
    public var memberCSV: String {
        var lines = ["period_start,period_end,breakdown,key,display_name,category,seconds,points,pickups"]
        for period in periods {
            for entry in period.byPlatform {
                lines.append("\(period.start),\(period.end),platform,\(entry.platform.rawValue),,,\(entry.seconds),,")
            }
            for app in period.apps {
                lines.append([period.start, period.end, "app", app.logicalID, app.displayName, app.category.rawValue, "\(app.seconds)", "\(app.points)", "\(app.pickups)"].map(Self.csvField).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled.
    public static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension UsageReport.Period {
    mutating func add(_ platforms: [MemberDay.PlatformSeconds]) {
        for entry in platforms {
            if let index = byPlatform.firstIndex(where: { $0.platform == entry.platform }) {
                byPlatform[index].seconds += entry.seconds
            } else {
                byPlatform.append(entry)
            }
        }
        byPlatform.sort { ($1.seconds, $0.platform.rawValue) < ($0.seconds, $1.platform.rawValue) }
    }

    /// Adds a day's summary: its totals as the server derived them (learning and reward by the
    /// kinds of its categories), and its apps.
    mutating func add(_ summary: DailySummary) {
        add(apps: summary.byApp, learning: summary.totalLearningSeconds, reward: summary.totalRewardSeconds, points: summary.totalPointsEarned)
    }

    /// Adds totals and apps' figures; an app keeps the name and category it was last seen with.
    mutating func add(apps: [DailySummary.App], learning: Int, reward: Int, points: Int) {
        totalLearningSeconds += learning
        totalRewardSeconds += reward
        totalPointsEarned += points
        for app in apps {
            totalSeconds += app.seconds
            totalPickups += app.pickups
            if let index = self.apps.firstIndex(where: { $0.logicalID == app.logicalID }) {
                self.apps[index].seconds += app.seconds
                self.apps[index].points += app.points
                self.apps[index].pickups += app.pickups
                self.apps[index].displayName = app.displayName
                self.apps[index].category = app.category
            } else {
                self.apps.append(app)
            }
        }
        self.apps.sort { ($1.seconds, $0.logicalID) < ($0.seconds, $1.logicalID) }
    }
}
