import ArgumentParser
import FamilySyncPostgres
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
            let client = PostgresClient(configuration: url.clientConfiguration(), backgroundLogger: logger)
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                group.addTask {
                    await client.run()
                    return []
                }
                defer { group.cancelAll() }
                return try await migrator.migrate(client: client)
            }
            return (applied, migrator.latestVersion)
        }
        print(applied.isEmpty
            ? "schema is up to date at version \(latest)"
            : "applied \(applied.map(String.init).joined(separator: ", ")); schema is at version \(latest)")
    }
}
