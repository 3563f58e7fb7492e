import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

struct FamilyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "family",
        abstract: "Create or delete a family.",
        subcommands: [Create.self, Delete.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a family with this device as its first parent; the profile keeps the device's credential."
        )

        @OptionGroup var options: ClientOptions
        @OptionGroup var device: DeviceRegistrationOptions

        func run() async throws {
            let context = try options.context()
            let registration = try device.registration()
            try context.profiles.checkFree(context.profileName, replacing: device.force)
            let client = try context.anonymousClient()
            let created = try await client.createFamily(registration)
            try context.profiles.save(
                Profile(
                    server: client.serverURL.absoluteString, credential: created.credential, familyId: created.family.id,
                    deviceId: created.device.id, role: .parent, name: created.device.name
                ),
                as: context.profileName
            )
            if context.output.json {
                // The credential stays in the profile file: output is for screens and logs.
                try context.output.document(ProfileSummary(profile: context.profileName, family: created.family, device: created.device))
                return
            }
            context.output.line("Created family \(created.family.id.lowercased) with \(created.device.name) as its parent (profile '\(context.profileName)').")
            context.output.line("Next, invite a child: familysync pair start --child-name NAME")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the family and everything of it: devices, zones, records, usage. Parents only."
        )

        @OptionGroup var options: ClientOptions
        @Flag(help: "Confirm: nothing of the family can be recovered.")
        var yes = false

        func run() async throws {
            let context = try options.context()
            let (profile, client) = try context.device(as: .parent, for: "deleting a family")
            guard yes else {
                throw OperatorError.configuration("deleting family \(profile.familyId.lowercased) cannot be undone; pass --yes to do it")
            }
            try await client.deleteFamily()
            try context.profiles.remove(context.profileName)
            let state = context.stateStore().url
            for file in [state, state.appendingPathExtension("lock")] { try? FileManager.default.removeItem(at: file) }
            try context.output.result(["deletedFamily": profile.familyId.lowercased], "Deleted family \(profile.familyId.lowercased) and removed profile '\(context.profileName)'.")
        }
    }
}

/// What `family create` and `pair accept` print with `--json`.
struct ProfileSummary: Encodable {
    var profile: String
    var family: FamilyReference
    var device: DeviceBody
    var pairing: PairingBody?
}
