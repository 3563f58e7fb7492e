import FamilySyncCore
import Foundation
import Testing

/// Daily summaries over categories (PROTOCOL §9.1): learning and reward by kind, every category in
/// `byCategory` and `totalSeconds`, pickups counted once, and summaries stored before them.
@Suite struct CategorySummaryTests {
    static let device = UUID()

    static func session(_ app: String, _ category: String, _ start: String, _ end: String, seconds: Int, pickups: Int? = nil) -> UsageSession {
        UsageSession(
            recordID: UUID(), logicalID: app, displayName: app, category: CategoryID(rawValue: category)!, sessionStart: Instant.parse(start)!,
            sessionEnd: Instant.parse(end)!, totalSeconds: seconds, earnedPoints: 0, pickups: pickups
        )
    }

    static func day(_ sessions: [UsageSession], kinds: CategoryKinds = CategoryKinds()) -> DailySummary {
        DailySummaryCalculator.summaries(of: sessions, days: ["2026-11-20"], deviceID: device, timeZone: .gmt, at: Instant.parse("2026-11-21T00:00:00Z")!, kinds: kinds)[0]
    }

    @Test func neutralCategoriesCountInTheTotalNotInLearningOrReward() {
        let summary = Self.day([
            Self.session("khan", "learning", "2026-11-20T10:00:00Z", "2026-11-20T10:10:00Z", seconds: 600),
            Self.session("insta", "social_media", "2026-11-20T11:00:00Z", "2026-11-20T11:30:00Z", seconds: 1800),
            Self.session("game", "reward", "2026-11-20T12:00:00Z", "2026-11-20T12:05:00Z", seconds: 300),
        ])
        #expect(summary.totalLearningSeconds == 600 && summary.totalRewardSeconds == 300 && summary.totalSeconds == 2700)
        #expect(summary.byCategory.map { "\($0.category.rawValue) \($0.seconds)" } == ["social_media 1800", "learning 600", "reward 300"])
    }

    @Test func aFamilysOwnCategoryCountsAsItsKind() {
        let chores = Self.session("broom", "x-chores", "2026-11-20T10:00:00Z", "2026-11-20T10:10:00Z", seconds: 600)
        #expect(Self.day([chores]).totalLearningSeconds == 0)
        let kinds = CategoryKinds(familyDefined: [CategoryID(rawValue: "x-chores")!: .learning])
        #expect(Self.day([chores], kinds: kinds).totalLearningSeconds == 600)
    }

    /// What counts is the category stored on each record: an app re-assigned mid-day keeps its
    /// morning in the old category's kind, and the day's app row shows the latest category.
    @Test func anAppReassignedMidDayCountsEachSessionAsStored() {
        let summary = Self.day([
            Self.session("tube", "learning", "2026-11-20T08:00:00Z", "2026-11-20T08:20:00Z", seconds: 1200),
            Self.session("tube", "entertainment", "2026-11-20T18:00:00Z", "2026-11-20T18:10:00Z", seconds: 600),
        ])
        #expect(summary.byApp.map(\.category.rawValue) == ["entertainment"])
        #expect(summary.totalSeconds == 1800)
    }

    @Test func pickupsOfARereportedSessionCountOnce() {
        let first = Self.session("insta", "social_media", "2026-11-20T11:00:00Z", "2026-11-20T11:30:00Z", seconds: 1800, pickups: 6)
        var again = first
        again.recordID = UUID()
        let summary = Self.day([first, again, Self.session("mail", "productivity", "2026-11-20T13:00:00Z", "2026-11-20T13:01:00Z", seconds: 60, pickups: 2)])
        #expect(summary.totalPickups == 8)
        #expect(summary.byApp.first { $0.logicalID == "insta" }?.pickups == 6)
    }

    /// A summary stored before §9.1 (no pickups, no byCategory) reads as one with none.
    @Test func aSummaryStoredBeforePickupsReads() throws {
        var fields = Self.day([Self.session("khan", "learning", "2026-11-20T10:00:00Z", "2026-11-20T10:10:00Z", seconds: 600)]).fields
        fields["totalPickups"] = nil
        fields["byCategory"] = nil
        if case .array(let apps)? = fields["byApp"] {
            fields["byApp"] = .array(apps.map { app in
                guard case .object(var object) = app else { return app }
                object["pickups"] = nil
                return .object(object)
            })
        }
        let summary = try #require(DailySummary(fields: fields))
        #expect(summary.totalPickups == 0 && summary.totalSeconds == 600)
    }
}
