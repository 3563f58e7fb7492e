import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync members …`: the people of the family and their devices (PROTOCOL §8).
struct MembersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "members",
        abstract: "The family's people and their devices (PROTOCOL §8): list, add, rename, remove, move a device, track this device.",
        subcommands: [List.self, Add.self, Rename.self, Remove.self, Move.self, Track.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every member with their devices (a parent); a child's device: its own member.")

        @OptionGroup var options: ClientOptions

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device()
            let members = try await client.members()
            if context.output.json { return try context.output.document(MemberList(members: members)) }
            let devices = (try? await client.devices()) ?? []
            context.output.table(["MEMBER", "ROLE", "DEVICES", "ID"], members.map { member in
                let names = member.deviceIds.map { id in devices.first { $0.id == id }.map { "\($0.name) (\($0.platform.rawValue))" } ?? id.lowercased }
                return [member.name, member.role.rawValue, names.isEmpty ? "-" : names.joined(separator: ", "), member.id.lowercased]
            })
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A new member with no device yet (pair one into it with 'pair start --member NAME').")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The person's name.")
        var name: String
        @Option(help: "child or parent. Default: child.")
        var role: String = "child"

        func run() async throws {
            let context = try options.context()
            let role = try choice(role, as: DeviceRole.self, for: "the role")
            let (_, client) = try context.device(as: .parent, for: "adding a member")
            let member = try await client.createMember(name: name, role: role)
            try context.output.result(member, "Added \(member.name) (\(member.role.rawValue)), member \(member.id.lowercased).")
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give a member a new name.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The member: its id or its name.")
        var member: String
        @Argument(help: "The new name.")
        var name: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "renaming a member")
            let target = try await MemberOption.find(member, client)
            let renamed = try await client.renameMember(target.id, to: name)
            try context.output.result(renamed, "\(target.name) is now \(renamed.name).")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a member: its devices are revoked and its zone deleted; its devices' history stays.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The member: its id or its name.")
        var member: String
        @Flag(help: "Confirm: the member's devices stop working at once, and everything of the member is erased (export it first: familysync export --member).")
        var yes = false

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "removing a member")
            let target = try await MemberOption.find(member, client)
            guard yes else {
                throw OperatorError.configuration("removing \(target.name) revokes \(target.deviceIds.count) device(s) and erases everything of them, which cannot be undone; pass --yes to do it")
            }
            try await client.deleteMember(target.id)
            try context.output.result(["removedMember": target.id.lowercased], "Removed \(target.name): their devices are revoked and everything of them is erased.")
        }
    }

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move a device to another member of its role (a child's iPad that was set up as its own person).")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The device: its id or its name.")
        var device: String
        @Option(help: "The member it now belongs to: its id or its name.")
        var to: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "moving a device")
            let devices = try await client.devices().filter { $0.status != .revoked }
            let matching = devices.filter { ChildOption.matches($0, device) }
            guard matching.count == 1 else {
                throw OperatorError.configuration(matching.isEmpty ? "no device matches '\(device)'" : "'\(device)' matches several devices; give its id")
            }
            let member = try await MemberOption.find(to, client)
            let moved = try await client.moveDevice(matching[0].id, to: member.id)
            try context.output.result(moved, "\(moved.name) now belongs to \(member.name).")
        }
    }

    struct Track: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record this parent device's own usage (it gets a zone of its own and may upload usage), or stop with --off."
        )

        @OptionGroup var options: ClientOptions
        @Flag(help: "Stop tracking; what was uploaded stays.")
        var off = false

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "tracking a device")
            let device = try await client.setTracked(!off)
            try context.output.result(device, device.tracked
                ? "\(device.name) is tracked: its usage goes to \(device.zoneName ?? "its zone") ('familysync usage upload')."
                : "\(device.name) is no longer tracked.")
        }
    }
}

/// Finds a member by id or name (any case).
enum MemberOption {
    /// A member named by id, for a change made without asking the server (`--queue`).
    static func id(_ selector: String) throws -> UUID {
        guard let id = UUID(uuidString: selector) else {
            throw OperatorError.configuration("a queued change names its member by id (--member <id>): the server is not asked")
        }
        return id
    }

    static func find(_ selector: String, _ client: FamilySyncClient) async throws -> MemberBody {
        let members = try await client.members()
        let matching = members.filter { member in
            UUID(uuidString: selector).map { $0 == member.id } ?? (member.name.caseInsensitiveCompare(selector) == .orderedSame)
        }
        guard matching.count == 1 else {
            let names = members.map(\.name).joined(separator: ", ")
            throw OperatorError.configuration(matching.isEmpty
                ? "no member matches '\(selector)'; the family's members: \(names.isEmpty ? "none" : names)"
                : "'\(selector)' matches several members; give the member's id")
        }
        return matching[0]
    }
}
