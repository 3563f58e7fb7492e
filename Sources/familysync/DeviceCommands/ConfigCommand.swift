import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "A child's app configuration: which apps count as learning or reward, points, blocking.",
        subcommands: [Set.self, List.self]
    )

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Configure one app of a child: from a parent, an update_config command with the configuration, in one transaction.",
            discussion: """
                From a child's device (§11, the child's own app list: apps picked on the device, which only it can see), the \
                AppConfiguration record of its own zone, created or replaced from its current change tag; a parent's newer \
                change wins and is shown.
                """
        )

        @OptionGroup var options: ClientOptions
        @OptionGroup var child: ChildOption
        @Option(help: "The app's logical id, the same on every device (app-khan).")
        var app: String
        @Option(help: "The app's name as shown.")
        var name: String
        @Option(help: "learning or reward.")
        var category: String
        @Option(help: "Points a minute of use earns, 0-1000.")
        var points: Int?
        @Option(help: "The app's bundle identifier.")
        var bundleId: String?
        @Flag(inversion: .prefixedNo, help: "Whether the app is blocked on the child's device.")
        var blocked = false
        @Flag(inversion: .prefixedNo, help: "Whether the app is tracked at all.")
        var enabled = true

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device()
            let target = try await child.resolve(profile, client)
            var fields: [String: JSONValue] = [
                "logicalID": .string(app), "displayName": .string(name), "category": .string(category),
                "isEnabled": .bool(enabled), "blockingEnabled": .bool(blocked),
            ]
            if let points { fields["pointsPerMinute"] = .number(Double(points)) }
            if let bundleId { fields["bundleIdentifier"] = .string(bundleId) }
            if profile.role == .child { return try await publishOwn(fields, device: target, client: client, output: context.output) }
            let command = try await client.sendCommand(to: target.id, CreateCommandRequest(commandType: "update_config", configuration: [fields]))
            if context.output.json { return try context.output.document(command) }
            let pointsText = points.map { ", \($0) points a minute" } ?? ""
            context.output.line("\(name) (\(app)) is \(category)\(pointsText), \(blocked ? "blocked" : "not blocked")\(enabled ? "" : ", not tracked") on \(target.name).")
            context.output.line("Sent update_config command \(command.commandId) (\(command.status.rawValue)).")
        }

        /// The child's own list: the record of this app (by logicalID) replaced, or a new one.
        func publishOwn(_ fields: [String: JSONValue], device: DeviceBody, client: FamilySyncClient, output: Output) async throws {
            guard let zone = device.zoneName else { throw OperatorError.configuration("\(device.name) has no zone yet (it awaits confirmation)") }
            let stored = try await client.query(zone, QueryRecordsRequest(
                recordType: RecordTypeName.appConfiguration, filterBy: [.init(fieldName: "logicalID", comparator: .equals, value: .string(app))], resultsLimit: 1
            )).records.first
            let outcome = try await client.saveAppConfiguration(
                fields, named: stored?.recordName ?? "config-\(UUID().uuidString.lowercased())", changeTag: stored?.recordChangeTag, in: zone
            )
            switch outcome {
            case .saved(let record):
                try output.result(record, "\(name) (\(app)) is \(category), \(blocked ? "blocked" : "not blocked")\(enabled ? "" : ", not tracked") in \(device.name)'s own list.")
            case .conflict(let server, let error):
                let parent = server.fields?["displayName"]?.text ?? app
                throw FamilySyncError(error.code, "a parent changed \(parent) (\(app)) meanwhile and that change stands (§5.4); run the command again to change it")
            case .failed(let error):
                throw error
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The apps configured for a child.")

        @OptionGroup var options: ClientOptions
        @OptionGroup var child: ChildOption

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device()
            let target = try await child.resolve(profile, client)
            guard let zone = target.zoneName else { throw OperatorError.configuration("\(target.name) has no zone yet (it awaits confirmation)") }
            var records: [RecordBody] = []
            var marker: String?
            repeat {
                let page = try await client.query(zone, QueryRecordsRequest(recordType: RecordTypeName.appConfiguration, sortBy: [.init(fieldName: "logicalID")], resultsLimit: 200, continuationMarker: marker))
                records += page.records
                marker = page.continuationMarker
            } while marker != nil
            if context.output.json { return try context.output.document(QueryRecordsResponse(records: records, continuationMarker: nil)) }
            context.output.table(
                ["APP", "NAME", "CATEGORY", "POINTS/MIN", "ENABLED", "BLOCKED"],
                records.map { record in
                    let fields = record.fields ?? [:]
                    return [
                        fields["logicalID"]?.text ?? record.recordName, fields["displayName"]?.text ?? "-", fields["category"]?.text ?? "-",
                        fields["pointsPerMinute"]?.text ?? "-", fields["isEnabled"]?.text ?? "-", fields["blockingEnabled"]?.text ?? "-",
                    ]
                }
            )
        }
    }
}
