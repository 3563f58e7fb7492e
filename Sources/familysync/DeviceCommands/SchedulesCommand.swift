import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync schedules …` (PROTOCOL §11): a member's repeating shield schedules.
struct SchedulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedules",
        abstract: "A member's shield schedules (PROTOCOL §11): add or replace one, list them, remove one.",
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    /// `mon` … `sun` as ISO weekdays (Monday = 1), the names budgets use.
    static let weekdayNames = Dictionary(uniqueKeysWithValues: Budget.weekdays.enumerated().map { ($1, $0 + 1) })

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The member's schedules.")

        @OptionGroup var options: ClientOptions
        @Option(help: "The member: its name or id.")
        var member: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device()
            let target = try await MemberOption.find(member, client)
            let schedules = try await client.schedules(of: target.id).sorted { $0.scheduleID < $1.scheduleID }
            if context.output.json { return try context.output.document(schedules.map(\.fields)) }
            context.output.table(["ID", "NAME", "WHEN", "DAYS", "MODE", "APPS", "CATEGORIES", "STATE"], schedules.map { schedule in
                [
                    schedule.scheduleID, schedule.name, "\(Self.text(schedule.start))–\(Self.text(schedule.end))", Self.days(schedule.weekdays),
                    schedule.mode.rawValue, schedule.applications.isEmpty ? "-" : schedule.applications.joined(separator: ", "),
                    schedule.categories.isEmpty ? "-" : schedule.categories.map(\.rawValue).joined(separator: ", "), schedule.enabled ? "on" : "off",
                ]
            })
        }

        static func text(_ time: Schedule.TimeOfDay) -> String { String(format: "%02d:%02d", time.hour, time.minute) }

        static func days(_ weekdays: Set<Int>) -> String {
            weekdays.count == 7 ? "every day" : SchedulesCommand.weekdayNames.filter { weekdays.contains($0.value) }.sorted { $0.value < $1.value }.map(\.key).joined(separator: ",")
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a schedule to a member, or replace the one of the same id (parent).",
            discussion: "An interval may cross midnight: --from 21:00 --to 07:00 belongs to the day it starts on."
        )

        @OptionGroup var options: ClientOptions
        @Option(help: "The member: its name or id.")
        var member: String
        @Option(help: "The schedule's id (1-64 of a-z, 0-9, _ and -). Default: from its name.")
        var id: String?
        @Option(help: "Its name, as a parent reads it.")
        var name: String
        @Option(help: "Start, HH:MM local time.")
        var from: String
        @Option(help: "End, HH:MM local time.")
        var to: String
        @Option(help: "Days it starts on, comma-separated: mon,tue,… Default: every day.")
        var days: String?
        @Option(help: "Apps (logicalIDs), comma-separated.")
        var apps: String?
        @Option(help: "Category ids, comma-separated (gaming, social_media, …).")
        var categories: String?
        @Flag(help: "Shield everything but the apps and categories given.")
        var allowOnly = false
        @Option(help: "Minutes of warning before it starts (0-60). Default: \(Schedule.defaultWarningMinutes).")
        var warning: Int?
        @Option(help: "The ShieldConfiguration to show (its id).")
        var shield: String?
        @Flag(help: "Keep the schedule but do not run it.")
        var disable = false

        func run() async throws {
            let context = try options.context()
            let fields = try fields()
            let (_, client) = try context.device(as: .parent, for: "setting a schedule")
            let target = try await MemberOption.find(member, client)
            let saved = try await client.setSchedule(of: target.id, fields)
            try context.output.result(saved, "\(target.name)'s schedule \(saved.fields.flatMap(Schedule.init(fields:))?.scheduleID ?? saved.recordName): \(name), \(from)–\(to), \(days ?? "every day").")
        }

        func fields() throws -> [String: JSONValue] {
            func time(_ text: String, _ flag: String) throws -> JSONValue {
                let parts = text.split(separator: ":")
                guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]) else { throw OperatorError.configuration("\(flag) is HH:MM, as 21:00") }
                return .object(["hour": .number(Double(hour)), "minute": .number(Double(minute))])
            }
            func list(_ text: String?) -> JSONValue? {
                text.map { .array($0.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) }) }
            }
            let identifier = id ?? Schedule.suggestedID(forName: name)
            var fields: [String: JSONValue] = [
                "scheduleID": .string(identifier), "name": .string(name), "enabled": .bool(!disable), "intervalStart": try time(from, "--from"),
                "intervalEnd": try time(to, "--to"), "mode": .string((allowOnly ? Schedule.Mode.allowOnly : .shield).rawValue),
            ]
            if let days {
                let numbers = try days.split(separator: ",").map { day -> JSONValue in
                    guard let number = SchedulesCommand.weekdayNames[day.trimmingCharacters(in: .whitespaces).lowercased()] else {
                        throw OperatorError.configuration("--days takes mon, tue, wed, thu, fri, sat, sun, comma-separated")
                    }
                    return .number(Double(number))
                }
                fields["weekdays"] = .array(numbers)
            }
            if let apps = list(apps) { fields["applications"] = apps }
            if let categories = list(categories) { fields["categories"] = categories }
            if let warning { fields["warningTimeMinutes"] = .number(Double(warning)) }
            if let shield { fields["shieldConfigurationID"] = .string(shield) }
            return fields
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a member's schedule (parent).")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The schedule's id.")
        var id: String
        @Option(help: "The member: its name or id.")
        var member: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "removing a schedule")
            let target = try await MemberOption.find(member, client)
            try await client.deleteSchedule(id, of: target.id)
            context.output.line("Removed \(target.name)'s schedule \(id).")
        }
    }
}

/// `familysync shield set …` (PROTOCOL §11): how a member's shield looks.
struct ShieldCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shield",
        abstract: "How a member's shield screen looks (PROTOCOL §11).",
        subcommands: [Set.self]
    )

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a member's ShieldConfiguration (parent); schedules name it with --shield.")

        @OptionGroup var options: ClientOptions
        @Option(help: "The member: its name or id.")
        var member: String
        @Option(help: "Its id (1-64 of a-z, 0-9, _ and -).")
        var id: String
        @Option(help: "The title.")
        var title: String
        @Option(help: "The subtitle.")
        var subtitle: String?
        @Option(help: "The primary button's label.")
        var button: String
        @Option(help: "The secondary button's label.")
        var secondaryButton: String?
        @Option(help: "An SF Symbol's name.")
        var icon: String?
        @Option(help: "A UIKit blur style: light, dark, systemThinMaterial, …")
        var blur: String?
        @Option(help: "Colours, #RRGGBB or #RRGGBBAA.")
        var backgroundColor: String?
        @Option var titleColor: String?
        @Option var subtitleColor: String?
        @Option var buttonColor: String?

        func run() async throws {
            let context = try options.context()
            var fields: [String: JSONValue] = ["shieldConfigurationID": .string(id), "title": .string(title), "primaryButtonLabel": .string(button)]
            let optional: [(String, String?)] = [
                ("subtitle", subtitle), ("secondaryButtonLabel", secondaryButton), ("iconSymbol", icon), ("backgroundBlurStyle", blur),
                ("backgroundColor", backgroundColor), ("titleColor", titleColor), ("subtitleColor", subtitleColor), ("primaryButtonBackgroundColor", buttonColor),
            ]
            for (key, value) in optional { if let value { fields[key] = .string(value) } }
            let (_, client) = try context.device(as: .parent, for: "setting a shield")
            let target = try await MemberOption.find(member, client)
            let saved = try await client.setShieldConfiguration(of: target.id, fields)
            try context.output.result(saved, "\(target.name)'s shield \(id): \"\(title)\".")
        }
    }
}

/// `familysync shield-state` (PROTOCOL §11): what a device shields, now or at an instant.
struct ShieldStateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shield-state",
        abstract: "What a child device shields now or at --at: its member's schedules, blocked apps, the next change."
    )

    @OptionGroup var options: ClientOptions
    @OptionGroup var child: ChildOption
    @Option(help: "An RFC 3339 instant. Default: now.")
    var at: String?

    func run() async throws {
        let context = try options.context()
        let instant = try at.map { text -> Date in
            guard let date = Instant.parse(text) else { throw OperatorError.configuration("--at is an RFC 3339 instant, as 2026-10-24T21:30:00Z") }
            return date
        }
        let (profile, client) = try context.device()
        let device = try await child.resolve(profile, client)
        let state = try await client.shieldState(of: device.id, at: instant)
        if context.output.json { return try context.output.document(state) }
        let zone = TimeZone(identifier: device.timeZone) ?? .current
        func local(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = zone
            formatter.dateFormat = "yyyy-MM-dd HH:mm zzz"
            return formatter.string(from: date)
        }
        context.output.line("\(device.name) at \(local(state.at)):")
        let shielded = state.shielded.applications + state.shielded.categories.map { "category \($0)" }
        context.output.line("  shielded: " + (shielded.isEmpty ? "nothing" : shielded.joined(separator: ", ")))
        if let allowOnly = state.allowOnly {
            context.output.line("  allowed only: " + (allowOnly.applications + allowOnly.categories.map { "category \($0)" }).joined(separator: ", "))
        }
        for schedule in state.activeSchedules { context.output.line("  \(schedule.name) until \(local(schedule.until))") }
        for schedule in state.upcomingSchedules { context.output.line("  \(schedule.name) starts soon") }
        context.output.line("  blocked: " + (state.deviceBlocked ? "the whole device" : state.blockedApps.isEmpty ? "nothing" : state.blockedApps.joined(separator: ", ")))
        context.output.line("  next change: " + (state.nextChangeAt.map(local) ?? "none this week"))
    }
}
