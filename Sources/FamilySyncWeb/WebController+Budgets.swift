import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Hummingbird

/// `/app/members/{id}/budgets/…` (PROTOCOL §9.3): a parent creates, edits and deletes a member's
/// budgets on the page. The form's values become the record's fields; the server checks them as
/// it checks any parent's write, and a refusal comes back beside its field.
extension WebController {
    func addBudgetRoutes(to app: RouterGroup<Context>) {
        app.get("members/:id/budgets/new", use: newBudget)
            .get("members/:id/budgets/:budget", use: editBudget)
            .post("members/:id/budgets", use: saveBudget)
            .post("members/:id/budgets/:budget/delete", use: deleteBudget)
    }

    /// What the budget form posts; every field optional, so that a missing one is refused by the
    /// server with its own reason.
    struct BudgetInput: WebForm {
        var csrf: String?
        /// The budget being edited; absent for a new one.
        var budgetID: String?
        var category: String?
        var period: String?
        var dailyMinutes: String?
        var mon: String?, tue: String?, wed: String?, thu: String?, fri: String?, sat: String?, sun: String?
        var monthlyHours: String?
        var alertAtPercent: String?
        var isExcluded: String?
        var enabled: String?

        func minutes(on day: String) -> String? {
            [("mon", mon), ("tue", tue), ("wed", wed), ("thu", thu), ("fri", fri), ("sat", sat), ("sun", sun)].first { $0.0 == day }?.1
        }
    }

    @Sendable func newBudget(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let form = try await memberForm(session, context) else { return session.redirect("/app/") }
        let input = BudgetInput(
            category: Budget.Scope.allValue, period: Budget.Period.daily.rawValue, dailyMinutes: String(Budget.suggestedDailyMinutes),
            alertAtPercent: Budget.defaultAlertAtPercent.map(String.init).joined(separator: ", "), enabled: "on"
        )
        return pages.render("budgetForm", budgetForm(input, form, isNew: true), cookies: session.setCookies)
    }

    @Sendable func editBudget(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let form = try await memberForm(session, context) else { return session.redirect("/app/") }
        let id = context.parameters.get("budget") ?? ""
        guard let budget = try await form.client.budgets(of: form.member.id).first(where: { $0.budgetID == id }) else {
            throw FamilySyncError.notFound("\(form.member.name) has no budget \(id).")
        }
        func number(_ value: Int?) -> String? { value.map(String.init) }
        var input = BudgetInput(
            budgetID: budget.budgetID, category: budget.scope.fieldValue, period: budget.period.rawValue, dailyMinutes: number(budget.dailyMinutes),
            monthlyHours: number(budget.monthlyHours), alertAtPercent: budget.alertAtPercent.map(String.init).joined(separator: ", "),
            isExcluded: budget.isExcluded ? "on" : nil, enabled: budget.enabled ? "on" : nil
        )
        let days = Budget.weekdays.map { number(budget.weekdayMinutes[$0]) }
        (input.mon, input.tue, input.wed, input.thu, input.fri, input.sat, input.sun) = (days[0], days[1], days[2], days[3], days[4], days[5], days[6])
        return pages.render("budgetForm", budgetForm(input, form, isNew: false), cookies: session.setCookies)
    }

    /// `POST /app/members/{id}/budgets`: creates the budget, or replaces the one named by
    /// `budgetID`; back to the member, or the form with the reason beside its field.
    @Sendable func saveBudget(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let input = try await session.checkForm(request, as: BudgetInput.self)
        guard let form = try await memberForm(session, context) else { return session.redirect("/app/") }
        let editing = input.budgetID.flatMap { $0.isEmpty ? nil : $0 }
        let page = budgetForm(input, form, isNew: editing == nil)
        return try await Self.submit(page, at: "/app/members/\(form.member.id.lowercased)/budgets/\(editing.map(Self.pathSegment) ?? "new")", render: { pages.render("budgetForm", $0, status: $1.code.httpStatus, cookies: session.setCookies) }) {
            var fields = try Self.budgetFields(input)
            if editing == nil {
                // A new budget takes its category's id (Core's rule, the CLI's too); the form adds a
                // budget, so it never takes the id of one the member has.
                let taken = Set(try await form.client.budgets(of: form.member.id).map(\.budgetID))
                let stem = Budget.Scope(fieldValue: input.category ?? "").map(Budget.defaultID(for:)) ?? (input.category ?? "")
                fields["budgetID"] = .string(Self.newID(stem, taken: taken))
            }
            _ = try await form.client.setBudget(of: form.member.id, fields)
            return session.redirect("/app/members/\(form.member.id.lowercased)#budgets")
        }
    }

    @Sendable func deleteBudget(_ request: Request, context: Context) async throws -> Response {
        try await deleteMemberRecord(request, context, parameter: "budget", section: "budgets") { try await $0.deleteBudget($1, of: $2) }
    }

    /// The record's fields from the form as typed: a number that is not a whole number is refused
    /// here, beside its field; everything else is the server's to judge (§9.3).
    static func budgetFields(_ input: BudgetInput) throws(FamilySyncError) -> [String: JSONValue] {
        func integer(_ text: String?, _ field: String, _ what: String) throws(FamilySyncError) -> JSONValue? {
            guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            guard let value = Int(text) else { throw .badRequest("\(what): a whole number.", field: field) }
            return .number(Double(value))
        }
        var fields: [String: JSONValue] = [
            "budgetID": .string(input.budgetID ?? ""), "category": .string(input.category ?? ""), "period": .string(input.period ?? ""),
            "isExcluded": .bool(input.isExcluded == "on"), "enabled": .bool(input.enabled == "on"),
        ]
        let monthly = input.period == Budget.Period.monthly.rawValue
        // The other period's boxes may hold what was typed before switching; only this period's count.
        if !monthly {
            fields["dailyMinutes"] = try integer(input.dailyMinutes, "dailyMinutes", "Minutes a day")
            var days: [String: JSONValue] = [:]
            for day in Budget.weekdays {
                days[day] = try integer(input.minutes(on: day), "weekdayMinutes", "Minutes on \(day)")
            }
            if !days.isEmpty { fields["weekdayMinutes"] = .object(days) }
        } else {
            fields["monthlyHours"] = try integer(input.monthlyHours, "monthlyHours", "Hours a month")
        }
        let percents = (input.alertAtPercent ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var list: [JSONValue] = []
        for percent in percents {
            guard let value = Int(percent) else { throw .badRequest("Alert at: whole percents, separated by commas (80, 100).", field: "alertAtPercent") }
            list.append(.number(Double(value)))
        }
        if !list.isEmpty { fields["alertAtPercent"] = .array(list) }
        return fields
    }

    /// The form, showing `input` as typed.
    func budgetForm(_ input: BudgetInput, _ form: MemberFormContext, isNew: Bool) -> WebPages.BudgetForm {
        let member = form.member
        let strings = form.session.strings
        let frame = form.session.frame(strings.format(isNew ? "title.newBudget" : "title.editBudget", member.name), signedIn: true)
        let today = Self.lastSevenDays(endingAt: clock.now(), in: form.timeZone).last!
        let hours = input.monthlyHours.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        var page = WebPages.BudgetForm(
            frame: frame, memberID: member.id.lowercased, memberName: member.name, budgetID: isNew ? "" : (input.budgetID ?? ""), isNew: isNew,
            categories: Self.categoryOptions(form.categories, selected: input.category ?? Budget.Scope.allValue, all: strings["budget.allOption"], strings),
            periods: [(Budget.Period.daily, "minutesADay"), (.monthly, "hoursAMonth")].map {
                WebOption(value: $0.0.rawValue, label: strings[$0.1], selected: (input.period ?? Budget.Period.daily.rawValue) == $0.0.rawValue)
            },
            weekdays: Budget.weekdays.enumerated().map { index, key in
                .init(key: key, label: strings.weekday(index), field: WebField(input.minutes(on: key) ?? ""))
            },
            monthlyFormula: Self.monthlyFormula(hours: hours ?? 30, on: today, strings)
        )
        page.category = WebField(input.category ?? "")
        page.period = WebField(input.period ?? "")
        page.dailyMinutes = WebField(input.dailyMinutes ?? "")
        page.monthlyHours = WebField(input.monthlyHours ?? "")
        page.alertAtPercent = WebField(input.alertAtPercent ?? "")
        page.isExcluded = WebField(input.isExcluded ?? "")
        page.enabled = WebField(input.enabled ?? "")
        return page
    }

    /// §9.3's formula, worked for this month: `floor(hours × 60 / days in the month)` a day.
    static func monthlyFormula(hours: Int, on date: String, _ strings: WebStrings = WebStrings(.en)) -> String {
        let budget = Budget(budgetID: "f", scope: .all, period: .monthly, monthlyHours: hours)
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]) else { return "" }
        let days = Budget.daysInMonth(year: parts[0], month: parts[1])
        return strings.format("budget.formula", String(hours), String(days), String(budget.allowanceMinutes(on: date) ?? 0), strings["month.\(parts[1])"])
    }

    /// The built-in categories and the family's own, as choices; `all` first when given ("*").
    /// A built-in shows its name in the page's language unless the family renamed it.
    static func categoryOptions(_ records: [[String: JSONValue]], selected: String, all: String?, _ strings: WebStrings = WebStrings(.en)) -> [WebOption] {
        let allValue = Budget.Scope.allValue
        var options: [WebOption] = all.map { [WebOption(value: allValue, label: $0, selected: selected == allValue)] } ?? []
        let order = CategoryID.builtInOrder.map(\.rawValue)
        var names: [String: String] = [:]
        for record in records {
            if case .string(let id)? = record["id"], case .string(let name)? = record["displayName"] { names[id] = name }
        }
        for id in order { options.append(WebOption(value: id, label: names[id] ?? categoryName(id, strings), selected: selected == id)) }
        for (id, name) in names.filter({ !order.contains($0.key) }).sorted(by: { $0.value < $1.value }) {
            options.append(WebOption(value: id, label: name, selected: selected == id))
        }
        return options
    }
}
