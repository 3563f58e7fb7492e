import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync alerts …` (PROTOCOL §9.4): a member's alerts, watched as they come, dismissed.
struct AlertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alerts",
        abstract: "A member's alerts (PROTOCOL §9.4): list them, watch for new ones, dismiss one.",
        subcommands: [List.self, Dismiss.self, Report.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The member's alerts of the last days; with --watch, new ones as they come (Ctrl-C stops).")

        @OptionGroup var options: ClientOptions
        @Option(help: "The member: its name or id.")
        var member: String
        @OptionGroup var days: DateRangeOptions
        @Flag(help: "Also the dismissed ones.")
        var all = false
        @Flag(help: "Stay, and print each new alert as the server makes it (the long poll wakes on it).")
        var watch = false

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device()
            let target = try await MemberOption.find(member, client)
            let (from, to) = days.resolve(in: .current)
            // The token first, then the listing: an alert made in between is in one or the other.
            var token = watch ? try await client.databaseChanges(since: nil).changeToken : ""
            let alerts = try await client.alerts(of: target.id, from: from, to: to, includeDismissed: all)
            if context.output.json, !watch { return try context.output.document(AlertList(alerts: alerts)) }
            if !watch {
                context.output.table(["WHEN", "ALERT", "MESSAGE", "STATE", "ID"], alerts.map(Self.row))
                return
            }
            var seen = Swift.Set<UUID>()
            func show(_ alerts: [AlertBody]) throws {
                for alert in alerts.reversed() where !seen.contains(alert.alertID) {
                    seen.insert(alert.alertID)
                    if context.output.json { try context.output.compact(alert) } else { context.output.line(Self.row(alert).joined(separator: "  ")) }
                }
            }
            try show(alerts)
            FileHandle.standardError.write(Data("Watching \(target.name)'s alerts (Ctrl-C stops)…\n".utf8))
            while true {
                let woken = try await client.poll(since: token, timeout: 60)
                token = woken.changeToken
                guard woken.changed, woken.zones?.contains(target.zoneName) ?? false else { continue }
                let today = DateRangeOptions.today(in: .current)
                try show(try await client.alerts(of: target.id, from: from, to: max(to, today), includeDismissed: all))
            }
        }

        static func row(_ alert: AlertBody) -> [String] {
            [
                Human.instant(alert.createdAt), "\(alert.kind) \(alert.percent.map { "\($0)%" } ?? "")", alert.message,
                alert.dismissedAt == nil ? "new" : "dismissed", alert.alertID.lowercased,
            ]
        }
    }

    struct Dismiss: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Dismiss an alert (parent).")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The alert's id.")
        var id: String

        func run() async throws {
            let context = try options.context()
            guard let alertID = UUID(uuidString: id) else { throw OperatorError.configuration("an alert id is a UUID, not '\(id)'") }
            let (_, client) = try context.device(as: .parent, for: "dismissing an alert")
            let alert = try await client.dismissAlert(alertID)
            try context.output.result(alert, "Dismissed: \(alert.message)")
        }
    }

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report that a threshold this tracked device watches fired (PROTOCOL §9.4); sent again, it is the same alert."
        )

        @OptionGroup var options: ClientOptions
        @Option(help: "The category watched (or --app).")
        var category: String?
        @Option(help: "The app watched, its logicalID (or --category).")
        var app: String?
        @Option(help: "Minutes used when it fired.")
        var usedMinutes: Int
        @Option(help: "What the parent reads.")
        var message: String
        @Option(help: "This device's id for the alert (a UUID). Default: a new one.")
        var id: String?

        func run() async throws {
            let context = try options.context()
            let clientAlertID = try id.map { text in
                guard let id = UUID(uuidString: text) else { throw OperatorError.configuration("--id is a UUID, not '\(text)'") }
                return id
            } ?? UUID()
            let (_, client) = try context.device()
            let alert = try await client.reportAlert(ReportAlertRequest(
                clientAlertID: clientAlertID, category: category, logicalID: app, usedMinutes: usedMinutes, message: message
            ))
            try context.output.result(alert, "Reported: \(alert.message) (alert \(alert.alertID.lowercased)).")
        }
    }
}
