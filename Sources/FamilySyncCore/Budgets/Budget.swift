import Foundation

/// A member's budget (PROTOCOL §9.3): a `Budget` record `budget-<id>` in the member's zone,
/// written by parents. Daily (minutes a day, optionally per weekday) or monthly (hours a month,
/// spread evenly over its days as the budget seed does).
public struct Budget: Sendable, Equatable {
    public enum Period: String, Sendable, CaseIterable {
        case daily, monthly
    }

    /// What a budget counts: one category, or all screen time (`"*"`) but the excluded categories.
    public enum Scope: Sendable, Hashable {
        case category(CategoryID)
        case all

        /// The `category` member's value for all screen time.
        public static let allValue = "*"

        /// The record's `category`: a category's id, or `*`.
        public var fieldValue: String {
            if case .category(let id) = self { id.rawValue } else { Self.allValue }
        }

        public init?(fieldValue: String) {
            if fieldValue == Self.allValue {
                self = .all
            } else if let id = CategoryID(rawValue: fieldValue) {
                self = .category(id)
            } else {
                return nil
            }
        }
    }

    public var budgetID: String
    public var scope: Scope
    public var period: Period
    public var dailyMinutes: Int?
    /// `mon`…`sun`, overriding `dailyMinutes` on those days.
    public var weekdayMinutes: [String: Int]
    public var monthlyHours: Int?
    /// Its category does not count towards an all-screen-time budget.
    public var isExcluded: Bool
    public var alertAtPercent: [Int]
    public var enabled: Bool

    public static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    public init(
        budgetID: String, scope: Scope, period: Period, dailyMinutes: Int? = nil, weekdayMinutes: [String: Int] = [:], monthlyHours: Int? = nil,
        isExcluded: Bool = false, alertAtPercent: [Int] = Budget.defaultAlertAtPercent, enabled: Bool = true
    ) {
        self.budgetID = budgetID
        self.scope = scope
        self.period = period
        self.dailyMinutes = dailyMinutes
        self.weekdayMinutes = weekdayMinutes
        self.monthlyHours = monthlyHours
        self.isExcluded = isExcluded
        self.alertAtPercent = alertAtPercent
        self.enabled = enabled
    }

    public var recordName: String { Self.recordName(budgetID) }
    public static func recordName(_ id: String) -> String { "budget-\(id)" }

    /// The percents that raise an alert when a budget names none.
    public static let defaultAlertAtPercent = [80, 100]
    /// A new budget's daily minutes, as the dashboard's empty form offers them.
    public static let suggestedDailyMinutes = 120

    /// The id a budget takes when none is given: its category's, `all` for all screen time. So
    /// setting a category's budget again, without an id, changes the one it has.
    public static func defaultID(for scope: Scope) -> String {
        switch scope {
        case .all: "all"
        case .category(let id): id.rawValue
        }
    }

    /// The minutes allowed on a local date (`YYYY-MM-DD`): a monthly budget's
    /// `floor(monthlyHours × 60 / days in that month)`; a daily one's minutes of that weekday, else
    /// its `dailyMinutes`. Nil for a malformed date.
    public func allowanceMinutes(on date: String) -> Int? {
        guard let (year, month, day) = Self.civil(date) else { return nil }
        switch period {
        case .monthly:
            return (monthlyHours ?? 0) * 60 / Self.daysInMonth(year: year, month: month)
        case .daily:
            return weekdayMinutes[Self.weekday(year: year, month: month, day: day)] ?? dailyMinutes ?? 0
        }
    }

    static func civil(_ date: String) -> (Int, Int, Int)? {
        let parts = date.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month),
            (1...daysInMonth(year: year, month: month)).contains(day)
        else { return nil }
        return (year, month, day)
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `mon`…`sun` of a civil date (days since 1970-01-01, a Thursday).
    static func weekday(year: Int, month: Int, day: Int) -> String {
        let days = Instant.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
        let index = Int(((days % 7) + 7 + 3) % 7)  // 0 = Monday
        return weekdays[index]
    }
}

extension Budget {
    /// The record's members (§9.3).
    public static let rules = FieldRules(RecordTypeName.budget, [
        "budgetID": (.text(RecordNames.isRecordNameTail, "1–200 of A–Z, a–z, 0–9, '.', '_', ':' and '-'"), true),
        "category": (.text({ Scope(fieldValue: $0) != nil }, "\"*\" or " + CategoryID.describedForErrors), true),
        "period": (.oneOf(Set(Period.allCases.map(\.rawValue))), true),
        "dailyMinutes": (.integer(0...1440), false),
        "weekdayMinutes": (.integerMap(keys: Set(weekdays), range: 0...1440), false),
        "monthlyHours": (.integer(0...744), false),
        "isExcluded": (.bool, false),
        "alertAtPercent": (.integerList(count: 1...10, range: 1...1000), false),
        "enabled": (.bool, true),
    ])

    /// The rules, and what ties members together: the record's name, and each period's allowance.
    public static func validate(_ fields: [String: JSONValue], recordName: String, field: String) throws(FamilySyncError) {
        try rules.validate(fields, field: field)
        guard let budget = Budget(fields: fields) else { throw .badRequest("The budget cannot be read.", field: field) }
        guard recordName == budget.recordName else {
            throw .badRequest("A Budget record is named budget-<its budgetID>: \(budget.recordName).", field: "\(field).budgetID")
        }
        switch budget.period {
        case .daily:
            guard budget.dailyMinutes != nil || budget.weekdayMinutes.count == 7 else {
                throw .badRequest("A daily budget has dailyMinutes, or weekdayMinutes for all seven days.", field: "\(field).dailyMinutes")
            }
            if budget.monthlyHours != nil { throw .badRequest("A daily budget has no monthlyHours.", field: "\(field).monthlyHours") }
        case .monthly:
            guard budget.monthlyHours != nil else { throw .badRequest("A monthly budget has monthlyHours.", field: "\(field).monthlyHours") }
            if budget.dailyMinutes != nil || !budget.weekdayMinutes.isEmpty {
                throw .badRequest("A monthly budget has no daily minutes.", field: "\(field).\(budget.dailyMinutes != nil ? "dailyMinutes" : "weekdayMinutes")")
            }
        }
        if budget.isExcluded, budget.scope == .all {
            throw .badRequest("isExcluded takes a category out of \"*\"; the \"*\" budget itself cannot be excluded.", field: "\(field).isExcluded")
        }
    }

    /// From a stored record's fields; nil when they are not a budget.
    public init?(fields: [String: JSONValue]) {
        func string(_ key: String) -> String? { if case .string(let value)? = fields[key] { value } else { nil } }
        func integer(_ value: JSONValue?) -> Int? { if case .number(let number)? = value, let int = Int(exactly: number) { int } else { nil } }
        func bool(_ key: String) -> Bool? { if case .bool(let value)? = fields[key] { value } else { nil } }
        guard let id = string("budgetID"), let scope = string("category").flatMap(Scope.init(fieldValue:)),
            let period = string("period").flatMap(Period.init(rawValue:))
        else { return nil }
        var weekdays: [String: Int] = [:]
        if case .object(let map)? = fields["weekdayMinutes"] { for (key, value) in map { weekdays[key] = integer(value) } }
        var percents = Self.defaultAlertAtPercent
        if case .array(let values)? = fields["alertAtPercent"] { percents = values.compactMap(integer) }
        self.init(
            budgetID: id, scope: scope, period: period, dailyMinutes: integer(fields["dailyMinutes"]), weekdayMinutes: weekdays,
            monthlyHours: integer(fields["monthlyHours"]), isExcluded: bool("isExcluded") ?? false,
            alertAtPercent: Array(Set(percents)).sorted(), enabled: bool("enabled") ?? false
        )
    }
}

extension Budget {
    /// The record's fields, as `init(fields:)` reads them.
    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "budgetID": .string(budgetID), "category": .string(scope.fieldValue),
            "period": .string(period.rawValue), "isExcluded": .bool(isExcluded), "enabled": .bool(enabled),
            "alertAtPercent": .array(alertAtPercent.map { .number(Double($0)) }),
        ]
        if let dailyMinutes { fields["dailyMinutes"] = .number(Double(dailyMinutes)) }
        if let monthlyHours { fields["monthlyHours"] = .number(Double(monthlyHours)) }
        if !weekdayMinutes.isEmpty { fields["weekdayMinutes"] = .object(weekdayMinutes.mapValues { .number(Double($0)) }) }
        return fields
    }
}
