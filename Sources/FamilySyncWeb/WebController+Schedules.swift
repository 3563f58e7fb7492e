import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Hummingbird

/// `/app/members/{id}/schedules/…` (PROTOCOL §11): a parent creates, edits and deletes a
/// member's schedules on the page: its days, its times (across midnight too) in the member's time
/// zone, and what it shields or allows.
extension WebController {
    func addScheduleRoutes(to app: RouterGroup<Context>) {
        app.get("members/:id/schedules/new", use: newSchedule)
            .get("members/:id/schedules/:schedule", use: editSchedule)
            .post("members/:id/schedules", use: saveSchedule)
            .post("members/:id/schedules/:schedule/delete", use: deleteSchedule)
    }

    struct ScheduleInput: WebForm {
        var csrf: String?
        var scheduleID: String?
        var name: String?
        /// ISO weekdays, 1 (Monday) to 7, one box each.
        var weekdays: [String]?
        var intervalStart: String?
        var intervalEnd: String?
        var mode: String?
        /// logicalIDs, comma-separated.
        var applications: String?
        var categories: [String]?
        var warningTimeMinutes: String?
        var enabled: String?
    }

    @Sendable func newSchedule(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let form = try await memberForm(session, context) else { return session.redirect("/app/") }
        let input = ScheduleInput(
            name: "Bedtime", weekdays: (1...7).map(String.init), intervalStart: "21:00", intervalEnd: "07:00", mode: Schedule.Mode.shield.rawValue,
            warningTimeMinutes: String(Schedule.defaultWarningMinutes), enabled: "on"
        )
        return pages.render("scheduleForm", scheduleForm(input, form, isNew: true), cookies: session.setCookies)
    }

    @Sendable func editSchedule(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        guard let form = try await memberForm(session, context) else { return session.redirect("/app/") }
        let id = context.parameters.get("schedule") ?? ""
        guard let schedule = try await form.client.schedules(of: form.member.id).first(where: { $0.scheduleID == id }) else {
            throw FamilySyncError.notFound("\(form.member.name) has no schedule \(id).")
        }
        let input = ScheduleInput(
            scheduleID: schedule.scheduleID, name: schedule.name, weekdays: schedule.weekdays.sorted().map(String.init),
            intervalStart: Self.clock(schedule.start), intervalEnd: Self.clock(schedule.end), mode: schedule.mode.rawValue,
            applications: schedule.applications.joined(separator: ", "), categories: schedule.categories.map(\.rawValue),
            warningTimeMinutes: String(schedule.warningMinutes), enabled: schedule.enabled ? "on" : nil
        )
        return pages.render("scheduleForm", scheduleForm(input, form, isNew: false), cookies: session.setCookies)
    }

    @Sendable func saveSchedule(_ request: Request, context: Context) async throws -> Response {
        let session = WebSession(request, cookies)
        let input = try await session.checkForm(request, as: ScheduleInput.self)
        guard let form = try await memberForm(session, context) else { return session.redirect("/app/") }
        let editing = input.scheduleID.flatMap { $0.isEmpty ? nil : $0 }
        let page = scheduleForm(input, form, isNew: editing == nil)
        return try await Self.submit(page, at: "/app/members/\(form.member.id.lowercased)/schedules/\(editing.map(Self.pathSegment) ?? "new")", render: { pages.render("scheduleForm", $0, status: $1.code.httpStatus, cookies: session.setCookies) }) {
            var fields = try Self.scheduleFields(input)
            if editing == nil {
                // A new schedule's id comes from its name (Core's rule, the CLI's too).
                let taken = Set(try await form.client.schedules(of: form.member.id).map(\.scheduleID))
                fields["scheduleID"] = .string(Self.newID(Schedule.suggestedID(forName: input.name ?? ""), taken: taken))
            }
            _ = try await form.client.setSchedule(of: form.member.id, fields)
            return session.redirect("/app/members/\(form.member.id.lowercased)#schedules")
        }
    }

    @Sendable func deleteSchedule(_ request: Request, context: Context) async throws -> Response {
        try await deleteMemberRecord(request, context, parameter: "schedule", section: "schedules") { try await $0.deleteSchedule($1, of: $2) }
    }

    /// The record's fields from the form: times are `HH:MM` (a time input's value); what is not
    /// a time or a number is refused beside its field, the rest is the server's to judge (§11).
    static func scheduleFields(_ input: ScheduleInput) throws(FamilySyncError) -> [String: JSONValue] {
        func time(_ text: String?, _ field: String) throws(FamilySyncError) -> JSONValue {
            let parts = (text ?? "").trimmingCharacters(in: .whitespaces).split(separator: ":")
            guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]) else {
                throw .badRequest("A time of day, as 21:00.", field: field)
            }
            return .object(["hour": .number(Double(hour)), "minute": .number(Double(minute))])
        }
        var days: [JSONValue] = []
        for day in input.weekdays ?? [] {
            guard let number = Int(day) else { throw .badRequest("Days are 1 (Monday) to 7 (Sunday).", field: "weekdays") }
            days.append(.number(Double(number)))
        }
        guard !days.isEmpty else { throw .badRequest("Choose at least one day.", field: "weekdays") }
        var fields: [String: JSONValue] = [
            "scheduleID": .string(input.scheduleID ?? ""), "name": .string((input.name ?? "").trimmingCharacters(in: .whitespaces)),
            "enabled": .bool(input.enabled == "on"), "intervalStart": try time(input.intervalStart, "intervalStart"),
            "intervalEnd": try time(input.intervalEnd, "intervalEnd"), "mode": .string(input.mode ?? ""), "weekdays": .array(days),
            "applications": .array((input.applications ?? "").split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 != .string("") }),
            "categories": .array((input.categories ?? []).map { .string($0) }),
        ]
        if let text = input.warningTimeMinutes?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let minutes = Int(text) else { throw .badRequest("Minutes of warning: a whole number.", field: "warningTimeMinutes") }
            fields["warningTimeMinutes"] = .number(Double(minutes))
        }
        return fields
    }

    func scheduleForm(_ input: ScheduleInput, _ form: MemberFormContext, isNew: Bool) -> WebPages.ScheduleForm {
        let member = form.member
        let strings = form.session.strings
        let frame = form.session.frame(strings.format(isNew ? "title.newSchedule" : "title.editSchedule", member.name), signedIn: true)
        let days = Set(input.weekdays ?? [])
        let chosen = Set(input.categories ?? [])
        var page = WebPages.ScheduleForm(
            frame: frame, memberID: member.id.lowercased, memberName: member.name, timeZone: form.timeZone.identifier,
            scheduleID: isNew ? "" : (input.scheduleID ?? ""), isNew: isNew,
            days: (0..<7).map { .init(number: $0 + 1, label: strings.weekday($0), checked: days.contains(String($0 + 1))) },
            modes: Schedule.Mode.allCases.map(\.rawValue).map {
                WebOption(value: $0, label: strings["mode.\($0)"], selected: (input.mode ?? Schedule.Mode.shield.rawValue) == $0)
            },
            categoryChoices: Self.categoryOptions(form.categories, selected: "", all: nil, strings).map {
                WebOption(value: $0.value, label: $0.label, selected: chosen.contains($0.value))
            }
        )
        page.name = WebField(input.name ?? "")
        page.intervalStart = WebField(input.intervalStart ?? "")
        page.intervalEnd = WebField(input.intervalEnd ?? "")
        page.mode = WebField(input.mode ?? "")
        page.applications = WebField(input.applications ?? "")
        page.warningTimeMinutes = WebField(input.warningTimeMinutes ?? "")
        page.enabled = WebField(input.enabled ?? "")
        return page
    }

    /// "21:00".
    static func clock(_ time: Schedule.TimeOfDay) -> String { String(format: "%02d:%02d", time.hour, time.minute) }
}
