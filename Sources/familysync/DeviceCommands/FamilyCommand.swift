import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

struct FamilyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "family",
        abstract: "Create, recover or delete a family.",
        subcommands: [Create.self, Recover.self, RecoveryCode.self, RetentionCommand.self, Delete.self]
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
                // The credential stays in the profile file: output is for screens and logs. The
                // recovery code is shown this once, so it is in the output.
                try context.output.document(ProfileSummary(
                    profile: context.profileName, family: created.family, device: created.device, recoveryCode: created.recoveryCode
                ))
                return
            }
            context.output.line("Created family \(created.family.id.lowercased) with \(created.device.name) as its parent (profile '\(context.profileName)').")
            FamilyCommand.showRecoveryCode(created.recoveryCode, context.output)
            context.output.line("Next, invite a child: familysync pair start --child-name NAME")
        }
    }

    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Get a family back when every parent device is lost: this device joins it as a parent, with the recovery code."
        )

        @OptionGroup var options: ClientOptions
        @OptionGroup var device: DeviceRegistrationOptions
        @Option(help: "The family's recovery code, as it was shown (XXXX-XXXX-…; case and dashes do not matter).")
        var code: String

        func run() async throws {
            let context = try options.context()
            let registration = try device.registration()
            try context.profiles.checkFree(context.profileName, replacing: device.force)
            let client = try context.anonymousClient()
            let recovered = try await client.recoverFamily(recoveryCode: code, device: registration)
            try context.profiles.save(
                Profile(
                    server: client.serverURL.absoluteString, credential: recovered.credential, familyId: recovered.family.id,
                    deviceId: recovered.device.id, role: .parent, name: recovered.device.name
                ),
                as: context.profileName
            )
            if context.output.json {
                return try context.output.document(ProfileSummary(
                    profile: context.profileName, family: recovered.family, device: recovered.device, recoveryCode: recovered.recoveryCode
                ))
            }
            context.output.line("Recovered family \(recovered.family.id.lowercased): \(recovered.device.name) is one of its parents (profile '\(context.profileName)').")
            context.output.line("The code you used no longer works.")
            FamilyCommand.showRecoveryCode(recovered.recoveryCode, context.output)
        }
    }

    struct RecoveryCode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recovery-code",
            abstract: "Issue a new recovery code (parent); the old one stops working."
        )

        @OptionGroup var options: ClientOptions

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "issuing a recovery code")
            let code = try await client.issueRecoveryCode()
            if context.output.json { return try context.output.document(RecoveryCodeResponse(recoveryCode: code)) }
            context.output.line("The old recovery code no longer works.")
            FamilyCommand.showRecoveryCode(code, context.output)
        }
    }

    /// The code, once, and what it is for.
    static func showRecoveryCode(_ code: String, _ output: Output) {
        output.line("")
        output.line("Recovery code: \(code)")
        output.line("Write it down and keep it somewhere safe, away from this device: it is shown only now, and it")
        output.line("brings the family back if every parent device is lost ('familysync family recover --code …').")
        output.line("Anyone who has it can join the family as a parent.")
        output.line("")
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
    /// `family create` and `family recover` only: shown this once.
    var recoveryCode: String?
}
