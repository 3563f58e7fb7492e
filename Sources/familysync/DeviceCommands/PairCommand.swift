import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair a device: the parent starts and confirms, the new device accepts (PROTOCOL §3).",
        subcommands: [Start.self, Accept.self, ShowCode.self, TakeCode.self, Confirm.self, Reject.self, Show.self, List.self]
    )

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Invite a device (parent): prints the QR payload and, where qrencode is installed, the QR code."
        )

        @OptionGroup var options: ClientOptions
        @Option(help: "The child's name, shown on the parent's devices: a new member of that name.")
        var childName: String?
        @Option(help: "A second device of an existing member (its name or id), instead of --child-name.")
        var member: String?
        @Option(help: "child, or parent for a co-parent. Default: child.")
        var role: String = "child"
        @Option(help: "Seconds the invitation stays valid, 60-86400. Default: 600.")
        var ttl: Int?
        @Flag(help: "Stay until a device accepts, then print the emoji it shows.")
        var wait = false

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "inviting a device")
            let role = try choice(role, as: DeviceRole.self, for: "the role")
            var memberID: UUID?
            if let member { memberID = try await MemberOption.find(member, client).id }
            var invitation = try await client.createPairing(CreatePairingRequest(role: role, childName: childName, ttlSeconds: ttl, memberId: memberID))
            let pairingID = invitation.pairing.id.lowercased
            if !context.output.json {
                let who = member.map { "a device of \($0)" } ?? (role == .child ? "a child" + (childName.map { " (\($0))" } ?? "") : "a co-parent")
                context.output.line("Pairing \(pairingID) invites \(who) until \(Human.instant(invitation.pairing.expiresAt)).")
                context.output.line("On the new device, scan the code or run:")
                context.output.line("  familysync pair accept '\(invitation.qrPayload)' --name NAME")
                if let drawing = await TerminalQRCode.draw(invitation.qrPayload) { context.output.line(drawing) }
            }
            if wait {
                if !context.output.json { context.output.line("Waiting for a device to accept…") }
                invitation.pairing = try await Self.waitForAcceptance(invitation.pairing, client)
                if !context.output.json {
                    let emoji = invitation.pairing.verificationEmoji?.joined() ?? ""
                    context.output.line("A device accepted. It shows: \(emoji)")
                    context.output.line("If the emoji match, run: familysync pair confirm \(pairingID)")
                }
            }
            if context.output.json { try context.output.document(invitation) }
        }

        /// Long-polls until the pairing leaves `pending`: a device's acceptance wakes the parent's poll.
        static func waitForAcceptance(_ pairing: PairingBody, _ client: FamilySyncClient) async throws -> PairingBody {
            var token = try await client.databaseChanges(since: nil).changeToken
            while true {
                let current = try await client.pairing(pairing.id)
                switch current.status {
                case .pending:
                    let left = Int(current.expiresAt.timeIntervalSinceNow.rounded(.up))
                    token = try await client.poll(since: token, timeout: min(max(left, 1), 60)).changeToken
                case .accepted, .confirmed:
                    return current
                case .expired, .revoked, .burned, .rejected:
                    throw OperatorError.runtime("pairing \(pairing.id.lowercased) is \(current.status.rawValue); start a new one")
                }
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a family with the QR payload a parent showed; the profile keeps this device's credential."
        )

        @OptionGroup var options: ClientOptions
        @Argument(help: "The QR payload, familysync://pair?…")
        var payload: String
        @OptionGroup var device: DeviceRegistrationOptions
        @Flag(help: "Stay until the parent confirms or rejects this device.")
        var wait = false

        func run() async throws {
            let context = try options.context()
            let code: QRPayload
            do {
                code = try QRPayload(parsing: payload.trimmingCharacters(in: .whitespacesAndNewlines))
            } catch {
                throw OperatorError.configuration("that is not a FamilySync pairing code: \(error.reason)")
            }
            let registration = try device.registration()
            try context.profiles.checkFree(context.profileName, replacing: device.force)
            let server = try context.serverOverride ?? ClientOptions.serverURL(code.serverURL)
            let anonymous = try context.anonymousClient(server: server, keyPins: code.keyPins)
            let accepted = try await anonymous.acceptPairing(qrPayload: code.string, device: registration)
            try context.profiles.save(
                Profile(
                    server: server.absoluteString, credential: accepted.credential, familyId: accepted.device.familyId,
                    deviceId: accepted.device.id, role: accepted.device.role, name: accepted.device.name,
                    keyPins: code.keyPins.isEmpty ? nil : code.keyPins.map(\.description)
                ),
                as: context.profileName
            )
            let client = anonymous.authenticated(as: accepted.credential)
            var summary = ProfileSummary(profile: context.profileName, family: FamilyReference(id: accepted.device.familyId), device: accepted.device, pairing: accepted.pairing)
            if !context.output.json {
                context.output.line("Joined family \(accepted.device.familyId.lowercased) as \(accepted.device.name) (\(accepted.device.role.rawValue), profile '\(context.profileName)').")
                context.output.line("Check that the parent's screen shows the same emoji: \(accepted.pairing.verificationEmoji?.joined() ?? "")")
            }
            if wait {
                if !context.output.json { context.output.line("Waiting for the parent to confirm…") }
                summary.device = try await Self.waitForConfirmation(client)
                if !context.output.json {
                    context.output.line("Confirmed: this device is active" + (summary.device.zoneName.map { ", its zone is \($0)." } ?? "."))
                }
            } else if !context.output.json {
                context.output.line("The device can sync once the parent confirms (familysync devices shows its status).")
            }
            if context.output.json { try context.output.document(summary) }
        }

        /// Long-polls until the parent decides; the device's own status change wakes its poll.
        static func waitForConfirmation(_ client: FamilySyncClient) async throws -> DeviceBody {
            var token = try await client.databaseChanges(since: nil).changeToken
            while true {
                let me = try await client.me()
                if me.status == .active { return me }
                // A rejection revokes the credential: the poll or `me` answers 401, reported as such.
                token = try await client.poll(since: token, timeout: 60).changeToken
            }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let an accepted device in (parent), once its emoji match the ones shown here."
        )

        @OptionGroup var options: ClientOptions
        @Argument(help: "The pairing's id. Default: the only pairing a device has accepted.")
        var pairing: String?
        @Flag(help: "Confirm without asking (compare the emoji with 'familysync pair show' first).")
        var yes = false

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "confirming a device")
            let current = try await PairCommand.accepted(pairing, client)
            let emoji = current.verificationEmoji?.joined() ?? ""
            let device = try await client.devices().first { $0.id == current.deviceId }
            let name = device?.name ?? "the device"
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw OperatorError.configuration("compare the emoji (\(emoji)) with \(name)'s screen, then confirm with --yes")
                }
                FileHandle.standardOutput.write(Data("\(name) should show \(emoji)\nDo the emoji match? [y/N] ".utf8))
                guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased().trimmingCharacters(in: .whitespaces)) else {
                    throw OperatorError.runtime("not confirmed; 'familysync pair reject \(current.id.lowercased)' turns the device away")
                }
            }
            let confirmed = try await client.confirmPairing(current.id)
            try context.output.result(confirmed, "Confirmed \(name) (\(emoji)): it is now an active \(confirmed.role.rawValue) device of the family.")
        }
    }

    struct Reject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Turn away an accepted device (parent): its credential stops working.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The pairing's id. Default: the only pairing a device has accepted.")
        var pairing: String?

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "rejecting a device")
            let rejected = try await client.rejectPairing(try await PairCommand.accepted(pairing, client).id)
            try context.output.result(rejected, "Rejected pairing \(rejected.id.lowercased): the device that accepted it is revoked.")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A pairing's status and verification emoji.")

        @OptionGroup var options: ClientOptions
        @Argument(help: "The pairing's id.")
        var pairing: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device()
            let shown = try await client.pairing(try identifier(pairing, of: "a pairing"))
            if context.output.json { return try context.output.document(shown) }
            PairCommand.print([shown], context.output)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The family's pairings (parent).")

        @OptionGroup var options: ClientOptions
        @Option(help: "Only pairings in this status: pending, accepted, confirmed, rejected, expired, revoked or burned.")
        var status: String?

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "listing pairings")
            let filter = try status.map { try choice($0, as: PairingStatus.self, for: "the status") }
            let pairings = try await client.pairings(status: filter)
            if context.output.json { return try context.output.document(PairingList(pairings: pairings)) }
            PairCommand.print(pairings, context.output)
        }
    }

    static func print(_ pairings: [PairingBody], _ output: Output) {
        output.table(
            ["ID", "ROLE", "CHILD", "STATUS", "EXPIRES", "EMOJI"],
            pairings.map { [$0.id.lowercased, $0.role.rawValue, $0.childName ?? "-", $0.status.rawValue, Human.instant($0.expiresAt), $0.verificationEmoji?.joined() ?? "-"] }
        )
    }

    /// The pairing named, or the only one a device has accepted and that awaits the parent.
    static func accepted(_ text: String?, _ client: FamilySyncClient) async throws -> PairingBody {
        if let text { return try await client.pairing(try identifier(text, of: "a pairing")) }
        let waiting = try await client.pairings(status: .accepted)
        guard waiting.count == 1 else {
            throw OperatorError.configuration(waiting.isEmpty
                ? "no device has accepted a pairing yet"
                : "several devices await confirmation, name the pairing: \(waiting.map(\.id.lowercased).joined(separator: ", "))")
        }
        return waiting[0]
    }
}
