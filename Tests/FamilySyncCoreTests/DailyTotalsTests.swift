import FamilySyncCore
import Foundation
import Testing

/// PROTOCOL §9.2 without a database: the largest total wins, totals against sessions, the dates a
/// report may name.
@Suite struct DailyTotalsTests {
    static let device = UUID()
    static let now = Instant.parse("2026-11-20T21:00:00Z")!

    static func app(_ id: String, _ seconds: Int, category: String = "social_media", points: Int = 0, pickups: Int? = nil) -> DailyTotals.App {
        DailyTotals.App(logicalID: id, displayName: id.capitalized, category: CategoryID(rawValue: category)!, totalSeconds: seconds, earnedPoints: points, pickups: pickups)
    }

    static func day(_ sessions: [UsageSession], _ totals: [DailyTotals]) -> DailySummary {
        DailySummaryCalculator.summaries(of: sessions, totals: totals, days: ["2026-11-20"], deviceID: device, timeZone: .gmt, at: now)[0]
    }

    /// The case: 60 minutes, then 61 later in the day, is 61 (as two overlapping sessions
    /// with different ids it came to 90.5).
    @Test func aRunningTotalIsItsLargestReport() {
        let morning = DailyTotals(date: "2026-11-20", apps: []).merging([Self.app("tiktok", 3600)])
        let evening = morning.merging([Self.app("tiktok", 3660)])
        #expect(Self.day([], [evening]).totalSeconds == 3660)
        // A late report of the morning again lowers nothing; each count keeps its own largest.
        let late = evening.merging([Self.app("tiktok", 3000, points: 9, pickups: 2)])
        #expect(late.apps == [Self.app("tiktok", 3660, points: 9, pickups: 2)])
        #expect(late.merging([Self.app("tiktok", 10, pickups: nil)]).apps.first?.pickups == 2)
        // Merging is the same in any order.
        let reports = [[Self.app("a", 5), Self.app("b", 9, pickups: 1)], [Self.app("a", 7)], [Self.app("b", 3, pickups: 4), Self.app("c", 1)]]
        let merged = reports.reduce(DailyTotals(date: "2026-11-20", apps: [])) { $0.merging($1) }
        let reversed = reports.reversed().reduce(DailyTotals(date: "2026-11-20", apps: [])) { $0.merging($1) }
        #expect(merged.apps.map(\.totalSeconds) == reversed.apps.map(\.totalSeconds))
        #expect(merged.apps.map(\.pickups) == reversed.apps.map(\.pickups))
    }

    /// A report without a category keeps the stored one; with one, it moves the app.
    @Test func aCategoryIsKeptUnlessOneIsNamed() {
        let stored = DailyTotals(date: "2026-11-20", apps: [Self.app("tube", 600, category: "learning")])
        #expect(stored.merging([Self.app("tube", 700, category: "other")], keepingCategory: ["tube"]).apps.first?.category == .learning)
        #expect(stored.merging([Self.app("tube", 700, category: "entertainment")]).apps.first?.category.rawValue == "entertainment")
    }

    /// An app's day is the larger of its sessions' union and its total; its name and category are
    /// its sessions'.
    @Test func sessionsAndTotalsCountAsTheLarger() {
        let sessions = [
            UsageSession(
                recordID: UUID(), logicalID: "khan", displayName: "Khan Academy", category: .learning, sessionStart: Instant.parse("2026-11-20T10:00:00Z")!,
                sessionEnd: Instant.parse("2026-11-20T10:30:00Z")!, totalSeconds: 1800, earnedPoints: 20, pickups: 3
            ),
        ]
        let totals = DailyTotals(date: "2026-11-20", apps: [Self.app("khan", 1200, category: "reward", points: 50, pickups: 1), Self.app("tiktok", 900)])
        let summary = Self.day(sessions, [totals])
        #expect(summary.byApp.map { "\($0.logicalID) \($0.displayName) \($0.category.rawValue) \($0.seconds) \($0.points) \($0.pickups)" } == [
            "khan Khan Academy learning 1800 50 3", "tiktok Tiktok social_media 900 0 0",
        ])
        #expect(summary.totalLearningSeconds == 1800 && summary.totalRewardSeconds == 0 && summary.totalSeconds == 2700)
        // Totals of another day count nothing here; a total of nothing adds no app.
        let other = DailyTotals(date: "2026-11-19", apps: [Self.app("tiktok", 5000)])
        let nothing = DailyTotals(date: "2026-11-20", apps: [Self.app("mail", 0)])
        #expect(Self.day(sessions, [other, nothing]).byApp.map(\.logicalID) == ["khan"])
    }

    @Test func aReportNamesADayUpToTomorrowAndWithinRetention() throws {
        let retention: TimeInterval = 90 * 86_400
        // 21:00 UTC on the 20th is already the 21st in Tokyo: its tomorrow is the 22nd.
        try DailyTotals.checkDate("2026-11-21", in: .gmt, now: Self.now, retention: retention, field: "date")
        try DailyTotals.checkDate("2026-11-22", in: TimeZone(identifier: "Asia/Tokyo")!, now: Self.now, retention: retention, field: "date")
        #expect(throws: FamilySyncError.self) { try DailyTotals.checkDate("2026-11-22", in: .gmt, now: Self.now, retention: retention, field: "date") }
        #expect(throws: FamilySyncError.self) { try DailyTotals.checkDate("2026-11-23", in: TimeZone(identifier: "Asia/Tokyo")!, now: Self.now, retention: retention, field: "date") }
        // The last day retention keeps ends after now − 90 days; the one before it does not.
        try DailyTotals.checkDate("2026-08-22", in: .gmt, now: Self.now, retention: retention, field: "date")
        #expect(throws: FamilySyncError.self) { try DailyTotals.checkDate("2026-08-21", in: .gmt, now: Self.now, retention: retention, field: "date") }
        #expect(throws: FamilySyncError.self) { try DailyTotals.checkDate("2026-13-01", in: .gmt, now: Self.now, retention: retention, field: "date") }
    }

    /// The retention job deletes totals of days that ended everywhere before its cutoff.
    @Test func theLastEndedDateIsTwoDaysBeforeTheUTCDate() throws {
        #expect(DailyTotals.lastEndedDate(before: Instant.parse("2026-11-20T00:30:00Z")!) == "2026-11-18")
        // The 18th ends last at UTC−12, at 2026-11-19T12:00Z: before the cutoff.
        let end = try #require(DailySummaryCalculator.interval(of: "2026-11-18", in: TimeZone(secondsFromGMT: -12 * 3600)!)).end
        #expect(end < Instant.parse("2026-11-20T00:30:00Z")!)
    }

    @Test func fieldsRoundTrip() {
        let totals = DailyTotals(date: "2026-11-20", apps: [Self.app("b", 60, pickups: 2), Self.app("a", 0)])
        #expect(DailyTotals(fields: totals.fields) == totals)
        #expect(totals.apps.map(\.logicalID) == ["a", "b"])
    }
}
