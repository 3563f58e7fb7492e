import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync command …`: configuration commands from parent to child (PROTOCOL §7.1).
struct ChildCommandsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "command",
        abstract: "Commands from a parent to a child: send, list, report a result, cancel.",
        subcommands: [Send.self, List.self, Result.self, Cancel.self]
    )

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a command to a child (parent).")

        @OptionGroup var options: ClientOptions
        @OptionGroup var child: ChildOption
        @Argument(help: "block, unblock, update_config, request_sync, or a custom x-… type.")
        var type: String
        @Option(help: "The command's payload, a JSON object. A block or unblock names its apps by logicalID ('{\"logicalIDs\":[\"app-game\"]}'), or the whole device without it.")
        var payload: String?
        @Option(help: "Seconds until the command expires, 1-2592000. Default: 86400.")
        var expiresIn: Int?
        @Flag(help: "Do not send it now: keep it with the profile's pending changes ('familysync pending send' sends them). The child is then given by device id.")
        var queue = false

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device(as: .parent, for: "sending a command")
            let body = try payload.map { text -> [String: JSONValue] in
                guard let object = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)).objectValue else {
                    throw OperatorError.configuration("the payload must be a JSON object, not '\(text)'")
                }
                return object
            }
            let request = CreateCommandRequest(commandType: type, payload: body, expiresInSeconds: expiresIn)
            if queue {
                guard let id = child.child.flatMap(UUID.init(uuidString:)) else {
                    throw OperatorError.configuration("a queued command names its child by device id (--child <id>): the server is not asked")
                }
                return try await PendingCommand.queue(.command(request, to: id), context: context)
            }
            let target = try await child.resolve(profile, client)
            let command = try await client.sendCommand(to: target.id, request)
            try context.output.result(command, "Sent \(command.commandType) command \(command.commandId) to \(target.name); it expires \(Human.instant(command.expiresAt)).")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A child's commands, oldest first. Listed by the child itself, pending ones become delivered."
        )

        @OptionGroup var options: ClientOptions
        @OptionGroup var child: ChildOption
        @Option(help: "Only commands in this status when asked: pending, delivered, executed, failed, cancelled, expired, or open (pending or delivered).")
        var status: String?

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device()
            let filter = try status.map { try choice($0, as: CommandStatusFilter.self, for: "the status") }
            let target = try await child.resolve(profile, client)
            let commands = try await client.commands(of: target.id, status: filter)
            if context.output.json { return try context.output.document(CommandList(commands: commands)) }
            context.output.table(
                ["ID", "TYPE", "STATUS", "CREATED", "DELIVERED", "DONE", "ERROR"],
                commands.map { command in
                    [
                        command.commandId, command.commandType, command.status.rawValue, Human.instant(command.createdAt),
                        Human.instant(command.deliveredAt), Human.instant(command.executedAt ?? command.cancelledAt), command.error ?? "-",
                    ]
                }
            )
        }
    }

    struct Result: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Report what became of a command (the child it was sent to).")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The command's id.")
        var command: String
        @Flag(help: "The command was carried out.")
        var executed = false
        @Option(help: "The command failed, for this reason.")
        var failed: String?

        func validate() throws {
            guard executed != (failed != nil) else { throw ValidationError("give exactly one of --executed and --failed REASON") }
        }

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .child, for: "reporting a command's result")
            let done = try await client.reportResult(of: try identifier(command, of: "a command"), executed: executed, error: failed)
            try context.output.result(done, "Command \(done.commandId) (\(done.commandType)) is \(done.status.rawValue).")
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Cancel a command the child has not carried out yet (parent).")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The command's id.")
        var command: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "cancelling a command")
            let cancelled = try await client.cancelCommand(try identifier(command, of: "a command"))
            try context.output.result(cancelled, "Command \(cancelled.commandId) (\(cancelled.commandType)) is \(cancelled.status.rawValue).")
        }
    }
}
