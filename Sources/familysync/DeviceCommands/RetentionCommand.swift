import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync family retention` (PROTOCOL §15.1): how long the family keeps each kind of its
/// data. Options given change those kinds only; the others keep what the family set.
struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Show, or set, how long the family keeps each kind of its data, in days (parent; within the server's maximum)."
    )

    @OptionGroup var options: ClientOptions
    @Option(help: "Usage sessions, from when each ended.") var usageSessions: Int?
    @Option(help: "Daily totals, from the end of their day.") var dailyTotals: Int?
    @Option(help: "Daily and weekly summaries, from when each was made.") var summaries: Int?
    @Option(help: "Alerts, from when each was raised.") var alerts: Int?
    @Option(help: "Devices' health days, heartbeat gaps and errors.") var health: Int?
    @Option(help: "Commands, from when each was sent.") var commands: Int?
    @Option(help: "The audit log and its read counts.") var audit: Int?
    @Flag(help: "Back to the server's maximum for every kind (before any option given).") var reset = false

    var given: [RetentionKind: Int] {
        let values: [(RetentionKind, Int?)] = [
            (.usageSessions, usageSessions), (.dailyTotals, dailyTotals), (.summaries, summaries), (.alerts, alerts), (.health, health),
            (.commands, commands), (.audit, audit),
        ]
        return Dictionary(uniqueKeysWithValues: values.compactMap { kind, days in days.map { (kind, $0) } })
    }

    func run() async throws {
        let context = try options.context()
        let (_, client) = try context.device(as: .parent, for: "the family's retention")
        var shown = try await client.retention()
        if reset || !given.isEmpty {
            // The server replaces the family's settings: keep the kinds it set that are not given.
            var days: [RetentionKind: Int] = [:]
            if !reset {
                for name in shown.familySet { if let kind = RetentionKind(rawValue: name), let value = shown.days[name] { days[kind] = value } }
            }
            days.merge(given) { _, new in new }
            shown = try await client.setRetention(days)
        }
        if context.output.json { return try context.output.document(shown) }
        context.output.table(["KIND", "DAYS", "SET BY"], RetentionKind.allCases.map { kind in
            [kind.rawValue, shown.days[kind.rawValue].map(String.init) ?? "?", shown.familySet.contains(kind.rawValue) ? "family" : "server maximum"]
        })
        context.output.line("The server keeps nothing longer than \(shown.maximumDays) days. Shorter periods apply within the hour.")
    }
}
