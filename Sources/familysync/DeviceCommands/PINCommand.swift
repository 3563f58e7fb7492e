import ArgumentParser
import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// `familysync pin …` (PROTOCOL §11): the PIN in front of parent mode on a child's device. The PIN
/// is read from standard input, never from the command line, where other users could see it.
struct PINCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "A member's parent PIN (PROTOCOL §11): set or clear it (parent), check one (the member's device).",
        discussion: "The PIN (4 to 8 digits) is read from standard input: typed at a prompt, or piped in.",
        subcommands: [Set.self, Clear.self, Verify.self]
    )

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set or change a member's parent PIN (parent).")

        @OptionGroup var options: ClientOptions
        @Option(help: "The member: its name or id.")
        var member: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "setting a PIN")
            let target = try await MemberOption.find(member, client)
            let pin = try PINCommand.readPIN()
            try await client.setParentPIN(pin, of: target.id)
            context.output.line("\(target.name)'s parent PIN is set; \(target.name)'s devices check it with the server (offline, parent mode stays closed).")
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Clear a member's parent PIN (parent): parent mode on its devices is no longer behind one.")

        @OptionGroup var options: ClientOptions
        @Option(help: "The member: its name or id.")
        var member: String

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device(as: .parent, for: "clearing a PIN")
            let target = try await MemberOption.find(member, client)
            try await client.clearParentPIN(of: target.id)
            context.output.line("\(target.name)'s parent PIN is cleared.")
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a PIN against this device's member's (the member's own devices).",
            discussion: "Exits 0 for the right PIN, 1 for a wrong one; five wrong within 15 minutes lock checks out for 15 (exit 3, saying when to try again)."
        )

        @OptionGroup var options: ClientOptions

        func run() async throws {
            let context = try options.context()
            let (_, client) = try context.device()
            guard let member = try await client.me().memberId else { throw OperatorError.configuration("this device belongs to no member yet (it awaits confirmation)") }
            let pin = try PINCommand.readPIN()
            let valid = try await client.verifyParentPIN(pin, of: member)
            if context.output.json {
                try context.output.document(VerifyParentPINResponse(valid: valid))
            } else {
                context.output.line(valid ? "The PIN is right." : "The PIN is wrong.")
            }
            if !valid { throw ExitCode(1) }
        }
    }

    /// One line of standard input; at a terminal, prompted without echo.
    static func readPIN() throws -> String {
        let line: String?
        if isatty(STDIN_FILENO) == 1 {
            line = String(validatingCString: getpass("PIN: "))
        } else {
            line = readLine(strippingNewline: true)
        }
        guard let pin = line?.trimmingCharacters(in: .whitespaces), !pin.isEmpty else {
            throw OperatorError.configuration("no PIN on standard input: type it at the prompt, or pipe it in")
        }
        guard (try? ParentPIN.validate(pin, field: "pin")) != nil else { throw OperatorError.configuration("a PIN is 4 to 8 digits") }
        return pin
    }
}
