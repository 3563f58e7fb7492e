import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync categories …` (PROTOCOL §9.1): the built-in categories and the family's own.
struct CategoriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "categories",
        abstract: "Categories (PROTOCOL §9.1): the built-in ones and the family's own; define or rename one.",
        subcommands: [List.self, Set.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every category the family can use, with its kind.")

        @OptionGroup var options: ClientOptions

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device()
            var rows: [String: [String: JSONValue]] = [:]
            for fields in try await client.categories() {
                if case .string(let id)? = fields["id"] { rows[id] = fields }
            }
            let ids = Swift.Set(CategoryID.builtIn.keys).union(rows.keys).sorted()
            if context.output.json {
                return try context.output.document(ids.map { id in rows[id] ?? ["id": .string(id), "kind": .string(CategoryID.builtIn[id]?.rawValue ?? "neutral")] })
            }
            context.output.table(["CATEGORY", "NAME", "KIND", "DEFAULT", "DEFINED BY"], ids.map { id in
                let record = rows[id]
                func text(_ key: String) -> String? { if case .string(let value)? = record?[key] { value } else { nil } }
                let minutes: String = if case .number(let value)? = record?["defaultDailyMinutes"] { "\(Int(value)) min" } else { "-" }
                return [id, text("displayName") ?? "-", text("kind") ?? CategoryID.builtIn[id]?.rawValue ?? "neutral", minutes, record == nil ? "built in" : "the family"]
            })
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Define the family's own category (x-…), or rename a built-in one (parent).")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The category id: x-… for the family's own, or a built-in one.")
        var id: String
        @Option(help: "The name people see.")
        var name: String
        @Option(help: "learning, reward or neutral. A built-in keeps its own.")
        var kind: String?
        @Option(help: "An SF Symbol for it.")
        var symbol: String?
        @Option(help: "Default daily minutes.")
        var defaultMinutes: Int?

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "defining a category")
            var fields: [String: JSONValue] = [
                "id": .string(id), "displayName": .string(name), "kind": .string(kind ?? CategoryID.builtIn[id]?.rawValue ?? "neutral"),
            ]
            if let symbol { fields["sfSymbolName"] = .string(symbol) }
            if let defaultMinutes { fields["defaultDailyMinutes"] = .number(Double(defaultMinutes)) }
            let saved = try await client.setCategory(fields)
            try context.output.result(saved, "Category \(id) is \(name).")
        }
    }
}
