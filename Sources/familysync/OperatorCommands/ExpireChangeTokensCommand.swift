import ArgumentParser
import FamilySyncPostgres
import Foundation
import PostgresNIO

/// Run once on a database restored from an older backup, before servers start on it
/// (docs/operations.md, "Backups").
struct ExpireChangeTokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expire-change-tokens",
        abstract: "After restoring an older backup: refuse every change token handed out before (410), so devices fetch their zones whole."
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let families = try await database.run(logging: logging) { url, logger in
            try await PostgresConnection.withConnection(try url.connectionConfiguration(), logger: logger) { connection in
                try await ChangeLog.fenceChangeTokens(on: connection, logger: logger)
            }
        }
        print("\(families) \(families == 1 ? "family" : "families"): every change token handed out before now answers 410; devices fetch their zones again")
    }
}
