import FamilySyncCore
import Foundation
import Testing

/// What the dashboard and the CLI both take from Core when a parent leaves something out: a
/// budget's id and alert percents, a schedule's id and warning, the categories' order. One rule
/// each, so that the two clients cannot drift apart.
@Suite struct ClientDefaultsTests {
    @Test func aBudgetsIdIsItsScopesAndItsFieldsReadBack() throws {
        #expect(Budget.defaultID(for: .all) == "all")
        #expect(Budget.defaultID(for: .category(.learning)) == "learning")
        #expect(Budget.Scope(fieldValue: Budget.Scope.allValue) == .all)
        #expect(Budget.Scope(fieldValue: "gaming")?.fieldValue == "gaming")
        #expect(Budget.Scope(fieldValue: "no such thing!") == nil)
        let budget = Budget(
            budgetID: "weekend", scope: .category(try #require(CategoryID(rawValue: "gaming"))), period: .daily, dailyMinutes: 60,
            weekdayMinutes: ["sat": 120], isExcluded: true
        )
        #expect(budget.alertAtPercent == Budget.defaultAlertAtPercent)
        #expect(Budget(fields: budget.fields) == budget)
        try Budget.validate(budget.fields, recordName: budget.recordName, field: "fields")
        var noPercents = budget.fields
        noPercents["alertAtPercent"] = nil
        #expect(Budget(fields: noPercents)?.alertAtPercent == Budget.defaultAlertAtPercent)
    }

    @Test(arguments: [
        ("School nights", "school-nights"), ("  Bed -- time!  ", "bed-time"), ("Écran du soir", "cran-du-soir"), ("주말", "schedule"), ("!!!", "schedule"),
        (String(repeating: "a", count: 80), String(repeating: "a", count: 40)),
    ])
    func aSchedulesIdComesFromItsName(_ name: String, _ id: String) {
        #expect(Schedule.suggestedID(forName: name) == id)
        #expect(Schedule.isIdentifier(Schedule.suggestedID(forName: name)), "always one the rules take")
    }

    @Test func theBuiltInCategoriesInTheirOrder() {
        #expect(CategoryID.builtInOrder.first == .learning && CategoryID.builtInOrder.last == .other)
        #expect(Set(CategoryID.builtInOrder.map(\.rawValue)) == Set(CategoryID.builtIn.keys))
        #expect(CategoryID.builtInOrder.count == CategoryID.builtIn.count)
        #expect(Schedule.Mode.allCases.map(\.rawValue) == ["shield", "allowOnly"])
    }
}
