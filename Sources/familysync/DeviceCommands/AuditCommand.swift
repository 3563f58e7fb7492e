import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync audit …` (PROTOCOL §15.4): what parents and the server changed of the family's
/// rules and data, and how often parents read it.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "The family's audit log (parent): who changed what of a child's rules, when, from where; and parents' reads per day.",
        subcommands: [List.self, Reads.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The newest events first; with --member, those that concern one member.")

        @OptionGroup var options: ClientOptions
        @Option(help: "Only what concerns this member: its name or id.")
        var member: String?
        @Option(help: "How many events (1–1000).")
        var limit = 50
        @Option(help: "Older than the event a previous listing's cursor names.")
        var cursor: String?

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "reading the audit log")
            var target: MemberBody?
            if let member { target = try await MemberOption.find(member, client) }
            let page = try await client.auditEvents(member: target?.id, cursor: cursor, limit: limit)
            if context.output.json { return try context.output.document(page) }
            let names = Dictionary(uniqueKeysWithValues: try await client.members().map { ($0.id, $0.name) })
            let devices = Dictionary(uniqueKeysWithValues: try await client.devices().map { ($0.id, $0.name) })
            let rows: [[String]] = page.events.map { event in
                let who: String = event.actor.deviceId.map { devices[$0] ?? $0.lowercased } ?? event.actor.role
                let concerned: String = event.memberId.map { names[$0] ?? $0.lowercased } ?? ""
                let subject = "\(event.subjectType) \(event.subject ?? "")"
                return [Human.instant(event.at), who, event.actor.address ?? "", event.action, subject, concerned]
            }
            context.output.table(["WHEN", "WHO", "FROM", "WHAT", "OF", "FOR"], rows)
            if let next = page.cursor { context.output.line("More: familysync audit --cursor \(next)") }
        }
    }

    struct Reads: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Parents' reads of the family's data, counted per day (UTC), member and route.")

        @OptionGroup var options: ClientOptions
        @OptionGroup var days: DateRangeOptions

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "reading the audit log")
            let (from, to) = days.resolve(in: TimeZone(identifier: "UTC")!)
            let counts = try await client.auditReads(from: from, to: to)
            if context.output.json { return try context.output.document(AuditReadsList(days: counts)) }
            let names = Dictionary(uniqueKeysWithValues: try await client.members().map { ($0.id, $0.name) })
            context.output.table(["DAY", "WHO", "ROUTE", "READS"], counts.map { [$0.date, names[$0.memberId] ?? $0.memberId.lowercased, $0.route, String($0.reads)] })
        }
    }
}
