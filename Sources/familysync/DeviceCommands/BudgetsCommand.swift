import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync budgets …` and `familysync budget-status` (PROTOCOL §9.3).
struct BudgetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "budgets",
        abstract: "A member's budgets (PROTOCOL §9.3): set one, list them.",
        subcommands: [List.self, Set.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The member's budgets.")

        @OptionGroup var options: ClientOptions
        @Option(help: "The member: its name or id.")
        var member: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device()
            let target = try await MemberOption.find(member, client)
            let budgets = try await client.budgets(of: target.id).sorted { $0.budgetID < $1.budgetID }
            if context.output.json { return try context.output.document(budgets.map(\.fields)) }
            context.output.table(["BUDGET", "CATEGORY", "ALLOWANCE", "ALERTS AT", "STATE"], budgets.map { budget in
                [
                    budget.budgetID, budget.categoryText, budget.allowanceText, budget.alertAtPercent.map { "\($0)%" }.joined(separator: ", "),
                    (budget.enabled ? "enabled" : "disabled") + (budget.isExcluded ? ", not in *" : ""),
                ]
            })
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a member's budget (parent): a category or all screen time, minutes a day or hours a month."
        )

        @OptionGroup var options: ClientOptions
        @Option(help: "The member: its name or id.")
        var member: String
        @Option(help: "The category id (learning, reward, social_media, …), or * for all screen time.")
        var category: String
        @Option(help: "Minutes a day.")
        var daily: Int?
        @Option(help: "Minutes on given weekdays, overriding --daily: sat=120,sun=120.")
        var weekday: String?
        @Option(help: "Hours a month, spread evenly over its days (30 h in a 30-day month: 60 minutes a day).")
        var monthly: Int?
        @Option(help: "Percents of the allowance that make an alert, comma-separated.")
        var alertAt: String = Budget.defaultAlertAtPercent.map(String.init).joined(separator: ",")
        @Flag(help: "This category does not count towards the * budget.")
        var exclude = false
        @Flag(help: "Keep the budget but do not count it.")
        var disable = false
        @Option(help: "The budget's id. Default: the category (all for *).")
        var id: String?
        @Flag(help: "Do not send it now: keep it with the profile's pending changes ('familysync pending send' sends them). The member is then given by id.")
        var queue = false

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "setting a budget")
            if queue {
                let change = try PendingChange.budget(try fields(), of: try MemberOption.id(member))
                return try await PendingCommand.queue(change, context: context)
            }
            let target = try await MemberOption.find(member, client)
            let saved = try await client.setBudget(of: target.id, try fields())
            let budget = saved.fields.flatMap(Budget.init(fields:))
            try context.output.result(
                saved, "\(target.name)'s budget \(budget?.budgetID ?? "?"): \(budget?.categoryText ?? category), \(budget?.allowanceText ?? "")."
            )
        }

        func fields() throws -> [String: JSONValue] {
            guard let scope = Budget.Scope(fieldValue: category) else {
                throw OperatorError.configuration("--category takes a category's id or \(Budget.Scope.allValue) for all screen time")
            }
            var fields: [String: JSONValue] = [
                "budgetID": .string(id ?? Budget.defaultID(for: scope)), "category": .string(category),
                "enabled": .bool(!disable), "isExcluded": .bool(exclude),
            ]
            let percents = alertAt.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard percents.allSatisfy({ Int($0) != nil }) else { throw OperatorError.configuration("--alert-at takes whole numbers, comma-separated: 80,100") }
            fields["alertAtPercent"] = .array(percents.compactMap(Int.init).map { .number(Double($0)) })
            switch (daily, monthly) {
            case (nil, let hours?):
                fields["period"] = .string(Budget.Period.monthly.rawValue)
                fields["monthlyHours"] = .number(Double(hours))
            case (let minutes, nil) where minutes != nil || weekday != nil:
                fields["period"] = .string(Budget.Period.daily.rawValue)
                if let minutes { fields["dailyMinutes"] = .number(Double(minutes)) }
            default:
                throw OperatorError.configuration("give --daily MINUTES (and --weekday), or --monthly HOURS")
            }
            if let weekday {
                var map: [String: JSONValue] = [:]
                for pair in weekday.split(separator: ",") {
                    let parts = pair.split(separator: "=")
                    guard parts.count == 2, let minutes = Int(parts[1]) else { throw OperatorError.configuration("--weekday takes day=minutes pairs: sat=120,sun=120") }
                    map[String(parts[0])] = .number(Double(minutes))
                }
                fields["weekdayMinutes"] = .object(map)
            }
            return fields
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a member's budget (parent); its alerts stay.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The budget's id (familysync budgets list shows them).")
        var id: String
        @Option(help: "The member: its name or id.")
        var member: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "removing a budget")
            let target = try await MemberOption.find(member, client)
            try await client.deleteBudget(id, of: target.id)
            context.output.line("Removed \(target.name)'s budget \(id).")
        }
    }
}

struct BudgetStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "budget-status",
        abstract: "Each of a member's budgets against a day (PROTOCOL §9.3): used, left, over."
    )

    @OptionGroup var options: ClientOptions
    @Option(help: "The member: its name or id.")
    var member: String
    @Option(help: "The day, YYYY-MM-DD. Default: today here.")
    var date: String?

    func run() async throws {
        let context = try options.context()
        let (_, client) = try context.device()
        let target = try await MemberOption.find(member, client)
        let day = date ?? DateRangeOptions.today(in: .current)
        let status = try await client.budgetStatus(of: target.id, date: day)
        if context.output.json { return try context.output.document(status) }
        context.output.table(["BUDGET", "CATEGORY", "ALLOWED", "USED", "LEFT", "PERCENT", "OVER"], status.budgets.map { entry in
            [
                entry.budgetID, entry.category, Human.duration(entry.budgetMinutes * 60), Human.duration(entry.usedMinutes * 60),
                Human.duration(entry.remainingMinutes * 60), "\(entry.percent)%", entry.isOverBudget ? "yes" : "no",
            ]
        })
    }
}

extension Budget {
    var categoryText: String {
        if case .category(let id) = scope { id.rawValue } else { "* (all screen time)" }
    }

    var allowanceText: String {
        switch period {
        case .monthly: "\(monthlyHours ?? 0) h a month"
        case .daily:
            ([dailyMinutes.map { "\($0) min a day" }].compactMap { $0 } + Budget.weekdays.compactMap { day in weekdayMinutes[day].map { "\(day) \($0)" } })
                .joined(separator: ", ")
        }
    }
}
