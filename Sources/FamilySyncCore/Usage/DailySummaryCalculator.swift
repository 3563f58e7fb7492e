import Foundation

/// Daily summaries from usage sessions (PROTOCOL §7.3), a pure function: the server runs it in the
/// upload's transaction over the sessions that overlap the days the upload touched, and it is the
/// full recomputation the property tests compare the stored summaries with.
///
/// The rules, per app (`logicalID`) and local day:
/// - A session's `totalSeconds` and `earnedPoints` are spread evenly over [sessionStart, sessionEnd),
///   so a session across midnight is split in proportion (a day of 23 or 25 hours is what the time
///   zone says it is). A session with no duration counts at its instant.
/// - Overlapping sessions of the same app count once: at each instant the app's rate is the highest
///   rate of the sessions covering it, never their sum. A re-sent or doubly reported session adds
///   nothing; a longer report of the same session adds only what it covers beyond.
/// - An app's name and category on a day come from its session with the latest end that day.
/// - Pickups are spread and counted once like points (a re-reported session adds none).
/// - Seconds and points are rounded per app and day; the totals are the sums of the rounded values:
///   learning and reward by the kind of each app's category (§9.1), and `byCategory` by category.
/// The result does not depend on the order of the sessions.
public enum DailySummaryCalculator {
    /// The local day of an instant, `YYYY-MM-DD`: its UTC offset there, then civil-date
    /// arithmetic (a `Calendar` lookup costs more, and an upload asks thousands of times).
    public static func day(of instant: Date, in timeZone: TimeZone) -> String {
        format(dayNumber(of: instant, in: timeZone))
    }

    /// Days since 1970-01-01 of the local date of an instant.
    static func dayNumber(of instant: Date, in timeZone: TimeZone) -> Int64 {
        let local = instant.timeIntervalSince1970 + TimeInterval(timeZone.secondsFromGMT(for: instant))
        return Int64((local / 86_400).rounded(.down))
    }

    static func format(_ dayNumber: Int64) -> String {
        let (year, month, day) = Instant.civil(fromDays: dayNumber)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count < width ? String(repeating: "0", count: width - digits.count) + digits : digits
    }

    /// §1.1's refusal of a `field` that is not a date: every day of the proleptic Gregorian
    /// calendar from 0001-01-01 to 9999-12-31 is one (§1), before 1582 too; year 0 is not, as
    /// PostgreSQL's `date` has none.
    public static func notADate(_ name: String, field: String? = nil) -> FamilySyncError {
        .badRequest("\(name) is a date, YYYY-MM-DD, from 0001-01-01 to 9999-12-31.", field: field ?? name)
    }

    /// The instants a local day spans, or nil for anything but a date (`notADate`).
    public static func interval(of date: String, in timeZone: TimeZone) -> DateInterval? {
        let parts = date.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), year >= 1, (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        // Foundation's Gregorian calendar is the Julian one before 1582-10-15.
        guard year >= 1583 else { return prolepticInterval(year: year, month: month, day: day, named: date, in: timeZone) }
        let calendar = calendar(timeZone)
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let start = calendar.date(from: components),
            self.day(of: start, in: timeZone) == date,
            let end = calendar.date(byAdding: .day, value: 1, to: start)
        else { return nil }
        return DateInterval(start: start, end: end)
    }

    /// A day before 1583 from its day number: midnight local time, by the zone's offset then.
    /// No zone changed its offset that early (each keeps its local mean time until the 1800s),
    /// so a day there is 24 hours.
    static func prolepticInterval(year: Int, month: Int, day: Int, named date: String, in timeZone: TimeZone) -> DateInterval? {
        let local = TimeInterval(Instant.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day)) * 86_400)
        func midnight(_ local: TimeInterval) -> Date {
            let guess = Date(timeIntervalSince1970: local - TimeInterval(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local))))
            return Date(timeIntervalSince1970: local - TimeInterval(timeZone.secondsFromGMT(for: guess)))
        }
        let start = midnight(local)
        // 0100-02-29 would be 0100-03-01: a date that does not name itself back is none.
        guard self.day(of: start, in: timeZone) == date else { return nil }
        return DateInterval(start: start, end: midnight(local + 86_400))
    }

    /// The local days a session counts on.
    public static func days(of session: UsageSession, in timeZone: TimeZone) -> [String] {
        let last = session.sessionEnd > session.sessionStart ? session.sessionEnd.addingTimeInterval(-0.001) : session.sessionStart
        let first = dayNumber(of: session.sessionStart, in: timeZone)
        return (first...max(first, dayNumber(of: last, in: timeZone))).map(format)
    }

    /// The summaries of `days` from `sessions` (sessions that do not overlap a day are ignored).
    /// `kinds` says which categories count as learning and reward (a family's own `x-…` ones from
    /// their records); the built-ins' kinds are fixed.
    public static func summaries(
        of sessions: [UsageSession], totals: [DailyTotals] = [], days: [String], deviceID: UUID, timeZone: TimeZone, at instant: Date,
        kinds: CategoryKinds = CategoryKinds()
    ) -> [DailySummary] {
        let totalsByDate = Dictionary(totals.map { ($0.date, $0) }, uniquingKeysWith: { first, second in first.merging(second.apps) })
        let ordered = sessions.map { ($0, $0.recordID.uuidString) }
            .sorted { ($0.0.sessionStart, $0.0.sessionEnd, $0.1) < ($1.0.sessionStart, $1.0.sessionEnd, $1.1) }
            .map(\.0)
        let byApp = Dictionary(grouping: ordered, by: \.logicalID)
        return days.compactMap { date in
            guard let bounds = interval(of: date, in: timeZone) else { return nil }
            var summary = DailySummary.empty(date: date, deviceID: deviceID, at: instant)
            var apps: [String: DailySummary.App] = [:]
            for (logicalID, appSessions) in byApp {
                if let app = app(logicalID, appSessions, within: bounds) { apps[logicalID] = app }
            }
            for total in totalsByDate[date]?.apps ?? [] {
                apps[total.logicalID] = app(apps[total.logicalID], reported: total)
            }
            for app in apps.values where app.seconds > 0 || app.points > 0 || app.pickups > 0 {
                summary.byApp.append(app)
                switch kinds.kind(of: app.category) {
                case .learning: summary.totalLearningSeconds += app.seconds
                case .reward: summary.totalRewardSeconds += app.seconds
                case .neutral: break
                }
                summary.totalPointsEarned += app.points
            }
            summary.byApp.sort { ($1.seconds, $0.logicalID) < ($0.seconds, $1.logicalID) }
            return summary
        }
    }

    /// One app's seconds and points within a day: the union of its sessions there.
    static func app(_ logicalID: String, _ sessions: [UsageSession], within day: DateInterval) -> DailySummary.App? {
        struct Piece { var start: Date; var end: Date; var secondsRate: Double; var pointsRate: Double; var pickupsRate: Double }
        var pieces: [Piece] = []
        var instants: [Date: (seconds: Double, points: Double, pickups: Double)] = [:]
        var latest: UsageSession?
        for session in sessions {
            let duration = session.sessionEnd.timeIntervalSince(session.sessionStart)
            if duration > 0 {
                let start = max(session.sessionStart, day.start), end = min(session.sessionEnd, day.end)
                guard start < end else { continue }
                pieces.append(Piece(
                    start: start, end: end, secondsRate: Double(session.totalSeconds) / duration, pointsRate: Double(session.earnedPoints) / duration,
                    pickupsRate: Double(session.pickups ?? 0) / duration
                ))
            } else {
                guard session.sessionStart >= day.start, session.sessionStart < day.end else { continue }
                let current = instants[session.sessionStart] ?? (0, 0, 0)
                instants[session.sessionStart] = (
                    max(current.seconds, Double(session.totalSeconds)), max(current.points, Double(session.earnedPoints)),
                    max(current.pickups, Double(session.pickups ?? 0))
                )
            }
            // Ties (equal instants) fall to the later in the calculator's order, which sorts by id.
            if latest.map({ ($0.sessionEnd, $0.sessionStart) <= (session.sessionEnd, session.sessionStart) }) ?? true {
                latest = session
            }
        }
        guard let latest else { return nil }
        var seconds = 0.0, points = 0.0, pickups = 0.0
        let boundaries = Set(pieces.flatMap { [$0.start, $0.end] }).sorted()
        for (from, to) in zip(boundaries, boundaries.dropFirst()) {
            let covering = pieces.filter { $0.start <= from && $0.end >= to }
            guard !covering.isEmpty else { continue }
            let length = to.timeIntervalSince(from)
            seconds += (covering.map(\.secondsRate).max() ?? 0) * length
            points += (covering.map(\.pointsRate).max() ?? 0) * length
            pickups += (covering.map(\.pickupsRate).max() ?? 0) * length
        }
        // An instant inside one of the app's sessions is already counted by it.
        for (instant, value) in instants where !pieces.contains(where: { $0.start <= instant && instant < $0.end }) {
            seconds += value.seconds
            points += value.points
            pickups += value.pickups
        }
        let app = DailySummary.App(
            logicalID: logicalID, displayName: latest.displayName, category: latest.category,
            seconds: Int(seconds.rounded()), points: Int(points.rounded()), pickups: Int(pickups.rounded())
        )
        return app.seconds > 0 || app.points > 0 || app.pickups > 0 ? app : nil
    }

    /// An app's day from its sessions (nil: none that day) and its reported total: each count the
    /// larger of the two.
    static func app(_ sessions: DailySummary.App?, reported total: DailyTotals.App) -> DailySummary.App {
        guard var app = sessions else {
            return DailySummary.App(
                logicalID: total.logicalID, displayName: total.displayName, category: total.category, seconds: total.totalSeconds,
                points: total.earnedPoints, pickups: total.pickups ?? 0
            )
        }
        app.seconds = max(app.seconds, total.totalSeconds)
        app.points = max(app.points, total.earnedPoints)
        app.pickups = max(app.pickups, total.pickups ?? 0)
        return app
    }

    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
