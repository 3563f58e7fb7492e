import ArgumentParser
import Foundation

/// Exit codes: 0 clean, 1 a failure at run time, 2 bad configuration or usage.
@main
struct FamilySyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "familysync",
        abstract: "A self-hosted sync server for family screen-time apps.",
        subcommands: [ServeCommand.self, MigrateCommand.self],
        defaultSubcommand: nil
    )

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as OperatorError {
            FileHandle.standardError.write(Data("familysync: error: \(error.description)\n".utf8))
            Foundation.exit(error.exitCode)
        } catch {
            // Argument errors are bad configuration too: one exit code for "fix how you started me".
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
