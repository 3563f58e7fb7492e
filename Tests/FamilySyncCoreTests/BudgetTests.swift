import FamilySyncCore
import Foundation
import Testing

/// PROTOCOL §9.3's allowances and the Budget record's rules, without a database.
@Suite struct BudgetTests {
    static func monthly(_ hours: Int) -> Budget { Budget(budgetID: "social", scope: .category(CategoryID(rawValue: "social_media")!), period: .monthly, monthlyHours: hours) }

    /// `floor(monthlyHours × 60 / days in the month)`: the seed's 30 h is 60 minutes a day in a
    /// 30-day month, and every month length gives its own.
    @Test(arguments: [
        ("2026-11-23", 30, 60), ("2026-12-01", 30, 58), ("2026-02-14", 30, 64), ("2024-02-14", 30, 62), ("2000-02-01", 30, 62), ("2100-02-01", 30, 64),
        ("2026-01-31", 744, 1440), ("2026-04-30", 0, 0), ("2026-03-08", 30, 58),
    ])
    func aMonthlyBudgetIsSpreadOverItsMonth(_ date: String, _ hours: Int, _ minutes: Int) {
        #expect(Self.monthly(hours).allowanceMinutes(on: date) == minutes)
    }

    /// Weekday minutes override the daily minutes on their days; a DST day is a day like any other.
    @Test func weekdayMinutesOverrideTheDailyMinutes() {
        let budget = Budget(budgetID: "all", scope: .all, period: .daily, dailyMinutes: 60, weekdayMinutes: ["sat": 120, "sun": 90])
        #expect(budget.allowanceMinutes(on: "2026-11-21") == 120)  // a Saturday
        #expect(budget.allowanceMinutes(on: "2026-11-22") == 90)
        #expect(budget.allowanceMinutes(on: "2026-11-23") == 60)  // a Monday
        #expect(budget.allowanceMinutes(on: "2026-03-08") == 90)  // a Sunday, and 23 hours long in New York
        #expect(budget.allowanceMinutes(on: "2026-02-30") == nil)
    }

    static func fields(_ changes: [String: JSONValue]) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "budgetID": .string("social"), "category": .string("social_media"), "period": .string("monthly"), "monthlyHours": .number(30), "enabled": .bool(true),
        ]
        for (key, value) in changes { fields[key] = value }
        return fields.filter { $0.value != .null }
    }

    @Test func aValidBudgetIsRead() throws {
        try Budget.validate(Self.fields([:]), recordName: "budget-social", field: "record.fields")
        let budget = try #require(Budget(fields: Self.fields(["alertAtPercent": .array([.number(100), .number(80), .number(80)])])))
        #expect(budget.alertAtPercent == [80, 100])
        #expect(budget.scope == .category(CategoryID(rawValue: "social_media")!))
    }

    struct BadBudget: Sendable, CustomStringConvertible {
        var description: String
        var changes: [String: JSONValue]
        var field: String
    }

    static let badBudgets: [BadBudget] = [
        BadBudget(description: "monthly hours out of range", changes: ["monthlyHours": .number(745)], field: "record.fields.monthlyHours"),
        BadBudget(
            description: "a weekday map with a bad key",
            changes: ["period": .string("daily"), "monthlyHours": .null, "dailyMinutes": .number(60), "weekdayMinutes": .object(["monday": .number(30)])],
            field: "record.fields.weekdayMinutes"
        ),
        BadBudget(description: "an unknown category", changes: ["category": .string("games")], field: "record.fields.category"),
        BadBudget(description: "a daily budget without minutes", changes: ["period": .string("daily"), "monthlyHours": .null], field: "record.fields.dailyMinutes"),
        BadBudget(description: "a monthly budget with daily minutes", changes: ["dailyMinutes": .number(60)], field: "record.fields.dailyMinutes"),
        BadBudget(description: "all screen time excluded from itself", changes: ["category": .string("*"), "isExcluded": .bool(true)], field: "record.fields.isExcluded"),
        BadBudget(description: "eleven alert percents", changes: ["alertAtPercent": .array((1...11).map { JSONValue.number(Double($0 * 10)) })], field: "record.fields.alertAtPercent"),
        BadBudget(description: "a zero alert percent", changes: ["alertAtPercent": .array([.number(0)])], field: "record.fields.alertAtPercent"),
        BadBudget(description: "an unknown member", changes: ["colour": .string("red")], field: "record.fields.colour"),
        BadBudget(description: "no enabled", changes: ["enabled": .null], field: "record.fields.enabled"),
    ]

    @Test(arguments: badBudgets)
    func aBadBudgetIsRefusedNamingTheMember(_ bad: BadBudget) {
        let error = #expect(throws: FamilySyncError.self, "\(bad.description)") {
            try Budget.validate(Self.fields(bad.changes), recordName: "budget-social", field: "record.fields")
        }
        #expect(error?.code == .badRequest)
        #expect(error?.field == bad.field, "\(bad.description): \(error?.reason ?? "")")
    }

    @Test func aBudgetIsNamedAfterItsID() {
        let error = #expect(throws: FamilySyncError.self) { try Budget.validate(Self.fields([:]), recordName: "budget-other", field: "f") }
        #expect(error?.field == "f.budgetID")
    }
}
