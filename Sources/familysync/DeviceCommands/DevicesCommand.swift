import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "The family's devices (a child sees itself), or revoke one.",
        subcommands: [List.self, Revoke.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The family's devices; a child device sees itself.")

        @OptionGroup var options: ClientOptions

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device()
            let devices = try await client.devices()
            if context.output.json { return try context.output.document(DeviceList(devices: devices)) }
            context.output.table(
                ["ID", "ROLE", "NAME", "CHILD", "STATUS", "LAST SEEN", "LAST SYNC"],
                devices.map { device in
                    [
                        device.id.lowercased + (device.id == profile.deviceId ? " *" : ""), device.role.rawValue, device.name,
                        device.childName ?? "-", device.status.rawValue, Human.instant(device.lastSeenAt), Human.instant(device.lastSyncAt),
                    ]
                }
            )
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a device (parent): its credential stops working at once.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The device: its id, its device name or the child's name.")
        var device: String
        @Flag(help: "Also delete its zone and everything in it.")
        var purge = false

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device(as: .parent, for: "revoking a device")
            let devices = try await client.devices()
            let matching = devices.filter { ChildOption.matches($0, device) }
            guard matching.count == 1, let target = matching.first else {
                throw OperatorError.configuration(matching.isEmpty ? "no device of the family matches '\(device)'" : "'\(device)' matches several devices, give the id")
            }
            guard target.id != profile.deviceId else {
                throw OperatorError.configuration("a device does not revoke itself; use another parent, or 'familysync family delete'")
            }
            try await client.revokeDevice(target.id, purge: purge)
            try context.output.result(["revoked": target.id.lowercased], "Revoked \(target.name) (\(target.id.lowercased))" + (purge ? " and deleted its zone." : "; its zone and data stay."))
        }
    }
}
