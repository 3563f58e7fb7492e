import FamilySyncCore
import Foundation
import Testing

@Suite struct DailySummaryCalculatorTests {
    static let device = UUID()
    static let chicago = TimeZone(identifier: "America/Chicago")!

    static func at(_ text: String) -> Date { Instant.parse(text)! }

    static func session(_ app: String, _ start: String, _ end: String, seconds: Int, points: Int = 0, category: UsageSession.Category = .learning, name: String? = nil) -> UsageSession {
        UsageSession(recordID: UUID(), logicalID: app, displayName: name ?? app, category: category, sessionStart: at(start), sessionEnd: at(end), totalSeconds: seconds, earnedPoints: points)
    }

    static func summarise(_ sessions: [UsageSession], _ days: [String], _ zone: TimeZone = chicago) -> [DailySummary] {
        DailySummaryCalculator.summaries(of: sessions, days: days, deviceID: device, timeZone: zone, at: at("2026-11-21T12:00:00Z"))
    }

    /// 23:30 to 00:30 local: half on each day, points too.
    @Test func aSessionAcrossMidnightIsSplitInProportion() {
        let sessions = [Self.session("khan", "2026-11-20T05:30:00Z", "2026-11-20T06:30:00Z", seconds: 3000, points: 100)]
        #expect(DailySummaryCalculator.days(of: sessions[0], in: Self.chicago) == ["2026-11-19", "2026-11-20"])
        let days = Self.summarise(sessions, ["2026-11-19", "2026-11-20"])
        #expect(days.map(\.totalLearningSeconds) == [1500, 1500])
        #expect(days.map(\.totalPointsEarned) == [50, 50])
    }

    @Test func overlappingSessionsOfOneAppCountOnce() {
        let once = Self.session("khan", "2026-11-20T15:00:00Z", "2026-11-20T15:10:00Z", seconds: 600, points: 60)
        var again = once
        again.recordID = UUID()
        let longer = Self.session("khan", "2026-11-20T15:05:00Z", "2026-11-20T15:20:00Z", seconds: 900, points: 90)
        let other = Self.session("minecraft", "2026-11-20T15:00:00Z", "2026-11-20T15:10:00Z", seconds: 600, category: .reward)
        let day = Self.summarise([once, again, longer, other], ["2026-11-20"])[0]
        #expect(day.byApp.first { $0.logicalID == "khan" }?.seconds == 1200, "15:00–15:20 once")
        #expect(day.byApp.first { $0.logicalID == "khan" }?.points == 120)
        #expect(day.totalLearningSeconds == 1200)
        #expect(day.totalRewardSeconds == 600, "another app's overlap is its own")
        #expect(day.appsUsed == ["khan", "minecraft"])
        #expect(day.byApp.map(\.logicalID) == ["khan", "minecraft"], "most used first")
    }

    /// 2026-03-08 has 23 hours in Chicago: a session over the whole day counts 23 hours.
    @Test func aDayOfTwentyThreeHours() {
        let day = DailySummaryCalculator.interval(of: "2026-03-08", in: Self.chicago)!
        #expect(day.duration == 23 * 3600)
        let sessions = [Self.session("tv", "2026-03-08T06:00:00Z", "2026-03-09T05:00:00Z", seconds: 23 * 3600)]
        #expect(Self.summarise(sessions, ["2026-03-08"]).first?.totalLearningSeconds == 23 * 3600)
        let fallBack: TimeInterval = DailySummaryCalculator.interval(of: "2026-11-01", in: Self.chicago)?.duration ?? 0
        #expect(fallBack.rounded() == 90_000, "and 2026-11-01 has 25")
    }

    @Test func theOrderOfSessionsDoesNotMatter() {
        var random = SystemRandomNumberGenerator()
        let sessions = (0..<40).map { index in
            Self.session(["a", "b", "c"][index % 3], "2026-11-20T0\(index % 10):1\(index % 6):00Z", "2026-11-20T1\(index % 10):00:00Z", seconds: 100 * index, points: index)
        }
        let expected = Self.summarise(sessions, ["2026-11-19", "2026-11-20"])
        for _ in 0..<5 {
            #expect(Self.summarise(sessions.shuffled(using: &random), ["2026-11-19", "2026-11-20"]) == expected)
        }
    }

    /// The name and category on a day are those of the app's last session that day.
    @Test func theLatestSessionNamesTheApp() {
        let sessions = [
            Self.session("a", "2026-11-20T15:00:00Z", "2026-11-20T15:10:00Z", seconds: 60, name: "Old name"),
            Self.session("a", "2026-11-20T16:00:00Z", "2026-11-20T16:10:00Z", seconds: 60, category: .reward, name: "New name"),
        ]
        let app = Self.summarise(sessions, ["2026-11-20"])[0].byApp[0]
        #expect(app.displayName == "New name")
        #expect(app.category == .reward)
    }

    @Test func anInstantSessionCountsOnItsDay() {
        let sessions = [Self.session("a", "2026-11-20T15:00:00Z", "2026-11-20T15:00:00Z", seconds: 1, points: 3)]
        let day = Self.summarise(sessions, ["2026-11-20"])[0]
        #expect(day.totalLearningSeconds == 1)
        #expect(day.totalPointsEarned == 3)
    }

    @Test func summariesRoundTripThroughFields() {
        let day = Self.summarise([Self.session("a", "2026-11-20T15:00:00Z", "2026-11-20T15:10:00Z", seconds: 600, points: 6)], ["2026-11-20"])[0]
        #expect(DailySummary(fields: day.fields) == day)
    }

    @Test(arguments: ["2026-02-30", "2026-13-01", "26-01-01", "2026-1-01", "x", "10000-01-01", "+001-01-01", "1582-02-29", "0100-02-29", "0000-01-01"])
    func malformedDatesHaveNoInterval(_ date: String) {
        #expect(DailySummaryCalculator.interval(of: date, in: Self.chicago) == nil)
    }

    /// One calendar for every date (§1): the proleptic Gregorian one, as instants are, from
    /// 0001-01-01 to 9999-12-31. Before 1582-10-15 too (Foundation's Gregorian calendar is the
    /// Julian one there): each day starts at its instant's midnight, in UTC and in a zone (whose
    /// offset then was its local mean time), and is named back by `day(of:)`.
    @Test(arguments: ["0001-01-01", "0004-02-29", "1000-03-01", "1582-10-04", "1582-10-14", "1582-10-15", "1583-01-01", "9999-12-31"])
    func everyDateFromYear1IsADay(_ date: String) throws {
        let day = try #require(DailySummaryCalculator.interval(of: date, in: .gmt), "\(date) refused")
        #expect(day.start == Self.at(date + "T00:00:00Z") && day.duration == 86_400)
        let local = try #require(DailySummaryCalculator.interval(of: date, in: Self.chicago), "\(date) refused in Chicago")
        let offset = TimeInterval(Self.chicago.secondsFromGMT(for: local.start))
        #expect(local.start == Self.at(date + "T00:00:00Z").addingTimeInterval(-offset) && local.duration == 86_400)
        #expect(DailySummaryCalculator.day(of: local.start, in: Self.chicago) == date && DailySummaryCalculator.day(of: local.end.addingTimeInterval(-1), in: Self.chicago) == date)
    }
}
