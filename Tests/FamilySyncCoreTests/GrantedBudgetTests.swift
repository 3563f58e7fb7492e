import FamilySyncCore
import Foundation
import Testing

/// What parents granted (PROTOCOL §16) counted into a day's budgets and their alerts.
@Suite struct GrantedBudgetTests {
    let games = Budget(budgetID: "games", scope: .category(.reward), period: .daily, dailyMinutes: 60, alertAtPercent: [80, 100])
    let all = Budget(budgetID: "all", scope: .all, period: .daily, dailyMinutes: 120, alertAtPercent: [100])
    /// 70 minutes of games: over its hour.
    let usage: [CategoryID: Int] = [.reward: 70 * 60]

    func granted(_ scope: Budget.Scope, _ extra: GrantedAllowance) -> (Budget.Scope) -> GrantedAllowance {
        { $0 == scope ? extra : .minutes(0) }
    }

    @Test func grantedMinutesJoinTheAllowance() {
        let plain = BudgetEvaluation.status(of: [games], date: "2026-03-07", byCategory: usage)
        #expect(plain.first?.budgetMinutes == 60)
        #expect(plain.first?.isOverBudget == true)
        let lifted = BudgetEvaluation.status(of: [games], date: "2026-03-07", byCategory: usage, granted: granted(.category(.reward), .minutes(15)))
        #expect(lifted.first?.budgetMinutes == 75)
        #expect(lifted.first?.remainingMinutes == 5)
        #expect(lifted.first?.isOverBudget == false)
        #expect(lifted.first?.granted == .minutes(15))
    }

    @Test func theRestOfTheDayLiftsTheBudget() {
        let status = BudgetEvaluation.status(of: [games], date: "2026-03-07", byCategory: [.reward: 300 * 60], granted: granted(.category(.reward), .restOfDay))
        #expect(status.first?.percent == 0)
        #expect(status.first?.isOverBudget == false)
        #expect(status.first?.granted == .restOfDay)
    }

    /// Usage within a grant raises no alert; past the grant it does.
    @Test func usageWithinAGrantRaisesNoAlert() {
        let member = UUID()
        func due(_ usage: [CategoryID: Int], _ extra: GrantedAllowance) -> [Int] {
            BudgetEvaluation.alertsDue(
                budgets: [games], date: "2026-03-07", byCategory: usage, existing: [], member: member, device: nil, at: Date(timeIntervalSince1970: 0),
                granted: granted(.category(.reward), extra)
            ).compactMap(\.percent)
        }
        #expect(due(usage, .minutes(0)) == [80, 100])
        // 70 of 75 minutes: 93 %.
        #expect(due(usage, .minutes(15)) == [80])
        #expect(due([.reward: 76 * 60], .minutes(15)) == [80, 100])
        #expect(due([.reward: 600 * 60], .restOfDay).isEmpty)
    }
}
