import Foundation

/// A budget against a member's day (PROTOCOL §9.3): what `budget-status` answers, and what the
/// budget alerts of §9.4 are decided from. Pure.
public struct BudgetStatus: Sendable, Equatable {
    public var budgetID: String
    public var scope: Budget.Scope
    /// The day's allowance with the minutes parents granted in it (§16).
    public var budgetMinutes: Int
    public var usedSeconds: Int
    /// Whole percent of the allowance used, rounded down; a zero allowance used at all is 1000 %
    /// (the top of `alertAtPercent`'s range), so that every threshold of it is reached. A budget a
    /// grant lifted for the rest of the day is at 0 %.
    public var percent: Int
    /// What parents granted on the day for this budget (§16).
    public var granted: GrantedAllowance = .minutes(0)

    public var usedMinutes: Int { usedSeconds / 60 }
    public var remainingMinutes: Int { max(0, budgetMinutes - usedMinutes) }
    public var isOverBudget: Bool { percent >= 100 }
}

public enum BudgetEvaluation {
    /// The member's seconds of a day that count against `budget`: its category's; for `"*"`,
    /// every category's but those an enabled budget marks `isExcluded`.
    public static func usedSeconds(_ budget: Budget, byCategory: [CategoryID: Int], excluded: Set<CategoryID>) -> Int {
        switch budget.scope {
        case .category(let category): byCategory[category] ?? 0
        case .all: byCategory.filter { !excluded.contains($0.key) }.reduce(0) { $0 + $1.value }
        }
    }

    /// Categories taken out of `"*"`.
    public static func excluded(_ budgets: [Budget]) -> Set<CategoryID> {
        Set(budgets.filter { $0.enabled && $0.isExcluded }.compactMap { if case .category(let id) = $0.scope { id } else { nil } })
    }

    /// Every enabled budget's status on `date` (a local date of the member's devices), in budget id order.
    /// `granted`: what parents granted on `date` for a budget's scope (§16; `GrantedAllowance.of`).
    public static func status(
        of budgets: [Budget], date: String, byCategory: [CategoryID: Int], granted: (Budget.Scope) -> GrantedAllowance = { _ in .minutes(0) }
    ) -> [BudgetStatus] {
        let excluded = excluded(budgets)
        return budgets.filter(\.enabled).sorted { $0.budgetID < $1.budgetID }.compactMap { budget in
            guard let allowance = budget.allowanceMinutes(on: date) else { return nil }
            let used = usedSeconds(budget, byCategory: byCategory, excluded: excluded)
            let grant = granted(budget.scope)
            let minutes: Int
            let percent: Int
            switch grant {
            case .restOfDay:
                (minutes, percent) = (allowance, 0)
            case .minutes(let extra):
                minutes = allowance + extra
                percent = minutes == 0 ? (used > 0 ? 1000 : 0) : used * 100 / (minutes * 60)
            }
            return BudgetStatus(budgetID: budget.budgetID, scope: budget.scope, budgetMinutes: minutes, usedSeconds: used, percent: percent, granted: grant)
        }
    }

    /// The budget alerts `date`'s usage calls for and that do not exist yet: one per (budget, day,
    /// percent) reached. Their ids come from that triple and the member alone, so whatever the order, repetition
    /// or concurrency of uploads, each is created once (the change log writes them under the
    /// family's lock, and an existing one is never written again).
    /// Usage within what parents granted (`granted`, §16) is measured against the allowance with
    /// the grant in it, so it raises no alert.
    public static func alertsDue(
        budgets: [Budget], date: String, byCategory: [CategoryID: Int], existing: Set<UUID>, member: UUID, device: UUID?, at now: Date,
        granted: (Budget.Scope) -> GrantedAllowance = { _ in .minutes(0) }
    ) -> [Alert] {
        status(of: budgets, date: date, byCategory: byCategory, granted: granted).flatMap { status -> [Alert] in
            guard let budget = budgets.first(where: { $0.budgetID == status.budgetID }) else { return [] }
            return budget.alertAtPercent.filter { status.percent >= $0 }.compactMap { threshold in
                let id = Alert.budgetAlertID(member: member, budgetID: budget.budgetID, date: date, percent: threshold)
                guard !existing.contains(id) else { return nil }
                let what = if case .category(let category) = budget.scope { category.rawValue } else { "screen time" }
                return Alert(
                    alertID: id, kind: .budget, memberID: member, deviceID: device,
                    category: budget.scope.fieldValue,
                    budgetID: budget.budgetID, date: date, budgetMinutes: status.budgetMinutes, usedMinutes: status.usedMinutes, percent: threshold,
                    message: "\(threshold)% of the \(what) budget used on \(date): \(status.usedMinutes) of \(status.budgetMinutes) minutes.",
                    createdAt: now, dismissedAt: nil
                )
            }
        }
    }
}
