import ArgumentParser
import FamilySyncApp
import FamilySyncPostgres
import FamilySyncServer
import Foundation
import PostgresNIO

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the schema migrations this binary carries, then exit."
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let (applied, latest) = try await database.run(logging: logging) { url, logger in
            let migrator = Migrator(logger: logger)
            // One connection for a one-shot command: a pool would be leased before it runs. Tried
            // again for a minute while the database is away, as `serve`'s start is.
            let configuration = try url.connectionConfiguration()
            let applied = try await StartupRetry.run("migrations", logger: logger) {
                try await PostgresConnection.withConnection(configuration, logger: logger) { connection in
                    try await migrator.migrate(connection: connection)
                }
            }
            return (applied, migrator.latestVersion)
        }
        print(applied.isEmpty
            ? "schema is up to date at version \(latest)"
            : "applied \(applied.map(String.init).joined(separator: ", ")); schema is at version \(latest)")
    }
}
