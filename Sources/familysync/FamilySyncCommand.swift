import ArgumentParser
import FamilySyncCore
import Foundation

/// Exit codes: 0 done; 1 a failure at run time, or the server refused the request; 2 bad
/// configuration or usage (flags, files, profiles, pairing codes); 3 the server could not be
/// reached or asked to try again later; 4 the device's credential no longer works.
@main
struct FamilySyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "familysync",
        abstract: "A self-hosted sync server for family screen-time apps, and a client that acts as a parent or a child device.",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, ExpireChangeTokensCommand.self, HealthcheckCommand.self,
            FamilyCommand.self, PairCommand.self, DevicesCommand.self, MembersCommand.self, ConfigCommand.self, ChildCommandsCommand.self,
            UsageCommand.self, SummariesCommand.self, ReportCommand.self, CategoriesCommand.self, BudgetsCommand.self, BudgetStatusCommand.self, AlertsCommand.self,
            HealthCommand.self, SchedulesCommand.self, ShieldCommand.self, ShieldStateCommand.self, PINCommand.self, PushCommand.self,
            ChangesCommand.self, WatchCommand.self, PendingCommand.self, AuditCommand.self, ExportCommand.self, FleetCommand.self, TLSCommand.self,
        ],
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
            fail(error.description, exitCode: error.exitCode)
        } catch let error as FamilySyncError {
            fail(error.description + hint(for: error), exitCode: exitCode(for: error))
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

    static func fail(_ reason: String, exitCode: Int32) -> Never {
        FileHandle.standardError.write(Data("familysync: error: \(reason)\n".utf8))
        Foundation.exit(exitCode)
    }

    static func exitCode(for error: FamilySyncError) -> Int32 {
        switch error.code {
        case .tryAgainLater, .throttled: 3
        case .authenticationRequired: 4
        default: 1
        }
    }

    static func hint(for error: FamilySyncError) -> String {
        switch error.code {
        case .authenticationRequired: " The device was revoked, rejected or its family deleted: pair it again."
        case .throttled, .tryAgainLater: error.retryAfter.map { " Try again in \($0) s." } ?? ""
        default: ""
        }
    }
}
