import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

extension PairCommand {
    /// `pair sign-in CODE` (PROTOCOL §3.1): a parent takes the code a signing-in device shows.
    struct TakeCode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-in",
            abstract: "Let in a device that shows a sign-in code, such as a browser on the dashboard (parent): prints the emoji it will show."
        )

        @OptionGroup var options: ClientOptions
        @Argument(help: "The code the device shows (K7QF-M2XA), or its QR payload (familysync://sign-in?…).")
        var code: String
        @Flag(help: "Stay until the device has claimed its credential, then say so.")
        var wait = false

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "letting a device sign in")
            let text = code.trimmingCharacters(in: .whitespacesAndNewlines)
            var pairing = text.hasPrefix("familysync:") ? try await client.takeSignIn(qrPayload: text) : try await client.takeSignIn(code: text)
            let emoji = pairing.verificationEmoji?.joined() ?? ""
            if !context.output.json {
                context.output.line("Pairing \(pairing.id.lowercased): the device will show \(emoji)")
            }
            if wait {
                if !context.output.json { context.output.line("Waiting for the device to claim its credential…") }
                pairing = try await PairCommand.Start.waitForAcceptance(pairing, client)
            }
            if context.output.json { return try context.output.document(pairing) }
            context.output.line("If the device shows the same emoji, run: familysync pair confirm \(pairing.id.lowercased)")
        }
    }

    /// `pair code` (PROTOCOL §3.1): this device shows a code for a parent to take, instead of
    /// scanning a parent's; it joins as a parent device.
    struct ShowCode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "code",
            abstract: "Join a family as a parent device by showing a code a parent takes with 'familysync pair sign-in'; the profile keeps the credential."
        )

        @OptionGroup var options: ClientOptions
        @OptionGroup var device: DeviceRegistrationOptions
        @Option(help: "Seconds between two asks while waiting for a parent. Default: 3.")
        var every: Int = 3
        @Flag(help: "Also stay until the parent confirms this device.")
        var wait = false

        func run() async throws {
            let context = try options.context()
            guard (1...60).contains(every) else { throw OperatorError.configuration("--every must be 1 to 60 seconds") }
            let registration = try device.registration()
            try context.profiles.checkFree(context.profileName, replacing: device.force)
            let anonymous = try context.anonymousClient()
            let started = try await anonymous.startSignIn(device: registration)
            if !context.output.json {
                context.output.line("Sign-in code \(started.signIn.code), valid until \(Human.instant(started.signIn.expiresAt)).")
                context.output.line("On a parent device, run: familysync pair sign-in \(started.signIn.code)")
                if let drawing = await TerminalQRCode.draw(started.qrPayload) { context.output.line(drawing) }
                context.output.line("Waiting for a parent to take it…")
            }
            var claimed = try await anonymous.claimSignIn(secret: started.secret)
            while claimed.credential == nil {
                try await Task.sleep(for: .seconds(every))
                claimed = try await anonymous.claimSignIn(secret: started.secret)
            }
            guard let credential = claimed.credential, let device = claimed.device else {
                throw OperatorError.runtime("the server's answer held no credential")
            }
            try context.profiles.save(
                Profile(
                    server: anonymous.serverURL.absoluteString, credential: credential, familyId: device.familyId, deviceId: device.id, role: device.role,
                    name: device.name
                ),
                as: context.profileName
            )
            var summary = ProfileSummary(profile: context.profileName, family: FamilyReference(id: device.familyId), device: device, pairing: claimed.pairing)
            if !context.output.json {
                context.output.line("A parent took the code: joined family \(device.familyId.lowercased) as \(device.name) (profile '\(context.profileName)').")
                context.output.line("Check that the parent's screen shows the same emoji: \(claimed.pairing?.verificationEmoji?.joined() ?? "")")
            }
            if wait {
                if !context.output.json { context.output.line("Waiting for the parent to confirm…") }
                summary.device = try await PairCommand.Accept.waitForConfirmation(anonymous.authenticated(as: credential))
                if !context.output.json { context.output.line("Confirmed: this device is an active parent device.") }
            }
            if context.output.json { try context.output.document(summary) }
        }
    }
}
