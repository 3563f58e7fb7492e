import FamilySyncCore
import Foundation
import Testing

/// PROTOCOL §9.3–§9.4's budget status and budget alerts, decided without a database: once per
/// (budget, day, percent), whatever the order and repetition of evaluations.
@Suite struct BudgetAlertTests {
    static let social = CategoryID(rawValue: "social_media")!
    static let member = UUID()
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    /// The seed's 30 h a month of social media: 60 minutes a day in November.
    static let budget = Budget(budgetID: "social", scope: .category(social), period: .monthly, monthlyHours: 30)

    static func due(_ budgets: [Budget], minutes: Int, existing: Set<UUID> = [], category: CategoryID = social) -> [Alert] {
        BudgetEvaluation.alertsDue(
            budgets: budgets, date: "2026-11-23", byCategory: [category: minutes * 60], existing: existing, member: member, device: nil, at: now
        )
    }

    @Test func eachPercentIsReachedOnce() {
        #expect(Self.due([Self.budget], minutes: 47).isEmpty)  // 78 %
        let first = Self.due([Self.budget], minutes: 48)
        #expect(first.map(\.percent) == [80])
        #expect(first.first?.message == "80% of the social_media budget used on 2026-11-23: 48 of 60 minutes.")
        // The same evaluation again, with the alert stored: nothing new.
        #expect(Self.due([Self.budget], minutes: 50, existing: Set(first.map(\.alertID))).isEmpty)
        let second = Self.due([Self.budget], minutes: 61, existing: Set(first.map(\.alertID)))
        #expect(second.map(\.percent) == [100])
        // Uploads in another order (one that jumps straight past both) decide the same two alerts.
        let jumped = Self.due([Self.budget], minutes: 61)
        #expect(Set(jumped.map(\.alertID)) == Set((first + second).map(\.alertID)))
    }

    /// A budget changed in the middle of the day: what is decided is against the budget as it
    /// is now, and an alert already made is never made again.
    @Test func aBudgetChangedMidDay() {
        let made = Self.due([Self.budget], minutes: 50)
        #expect(made.map(\.percent) == [80])
        var raised = Self.budget
        raised.monthlyHours = 60  // 120 minutes a day: 50 is 41 %
        #expect(Self.due([raised], minutes: 50, existing: Set(made.map(\.alertID))).isEmpty)
        var lowered = Self.budget
        lowered.monthlyHours = 20  // 40 minutes a day: 50 is 125 %
        #expect(Self.due([lowered], minutes: 50, existing: Set(made.map(\.alertID))).map(\.percent) == [100])
    }

    @Test func allScreenTimeLeavesOutTheExcludedCategories() {
        let all = Budget(budgetID: "all", scope: .all, period: .daily, dailyMinutes: 100, alertAtPercent: [100])
        let learning = Budget(budgetID: "learning", scope: .category(.learning), period: .daily, dailyMinutes: 600, isExcluded: true, alertAtPercent: [100])
        let usage: [CategoryID: Int] = [.learning: 90 * 60, Self.social: 50 * 60, .reward: 40 * 60]
        let status = BudgetEvaluation.status(of: [all, learning], date: "2026-11-23", byCategory: usage)
        #expect(status.map(\.budgetID) == ["all", "learning"])
        #expect(status[0].usedMinutes == 90 && status[0].percent == 90 && !status[0].isOverBudget && status[0].remainingMinutes == 10)
        var counted = learning
        counted.isExcluded = false
        #expect(BudgetEvaluation.status(of: [all, counted], date: "2026-11-23", byCategory: usage)[0].percent == 180)
        // A disabled budget neither counts nor excludes.
        counted.enabled = false
        counted.isExcluded = true
        #expect(BudgetEvaluation.status(of: [all, counted], date: "2026-11-23", byCategory: usage).map(\.percent) == [180])
    }

    @Test func aZeroAllowanceIsOverAtTheFirstSecond() {
        let none = Budget(budgetID: "games", scope: .category(CategoryID(rawValue: "gaming")!), period: .daily, dailyMinutes: 0, alertAtPercent: [50, 100, 1000])
        #expect(Self.due([none], minutes: 0, category: CategoryID(rawValue: "gaming")!).isEmpty)
        let alerts = BudgetEvaluation.alertsDue(
            budgets: [none], date: "2026-11-23", byCategory: [CategoryID(rawValue: "gaming")!: 1], existing: [], member: Self.member, device: nil, at: Self.now
        )
        #expect(alerts.map(\.percent) == [50, 100, 1000])
    }

    @Test func anAlertsIDComesFromItsBudgetDayAndPercent() {
        let member = UUID(), sibling = UUID()
        let id = Alert.budgetAlertID(member: member, budgetID: "social", date: "2026-11-23", percent: 80)
        #expect(id == Alert.budgetAlertID(member: member, budgetID: "social", date: "2026-11-23", percent: 80))
        #expect(id != Alert.budgetAlertID(member: member, budgetID: "social", date: "2026-11-23", percent: 100))
        #expect(id != Alert.budgetAlertID(member: member, budgetID: "social", date: "2026-11-24", percent: 80))
        #expect(id != Alert.budgetAlertID(member: member, budgetID: "social2", date: "2026-11-23", percent: 80))
        #expect(id != Alert.budgetAlertID(member: sibling, budgetID: "social", date: "2026-11-23", percent: 80))
        #expect(id.uuidString.lowercased().dropFirst(14).first == "8", "a version 8 UUID")
    }

    @Test func anAlertRoundTripsThroughItsFields() throws {
        let alert = try #require(Self.due([Self.budget], minutes: 61).last)
        #expect(Alert(fields: alert.fields) == alert)
        var dismissed = alert
        dismissed.dismissedAt = Self.now.addingTimeInterval(60)
        #expect(Alert(fields: dismissed.fields) == dismissed)
    }
}
