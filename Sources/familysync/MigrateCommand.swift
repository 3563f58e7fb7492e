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
        let environment = ProcessInfo.processInfo.environment
        let source = try database.resolve(environment)
        let logger = try logging.bootstrap(environment)
        let (url, embedded) = try await EmbeddedDatabaseLauncher.open(source, logger: logger)
        let migrator = Migrator(logger: logger)
        do {
            let client = PostgresClient(configuration: url.clientConfiguration(), backgroundLogger: logger)
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                group.addTask {
                    await client.run()
                    return []
                }
                defer { group.cancelAll() }
                return try await migrator.migrate(client: client)
            }
            await EmbeddedDatabaseLauncher.close(embedded, logger: logger)
            print(applied.isEmpty
                ? "schema is up to date at version \(migrator.latestVersion)"
                : "applied \(applied.map(String.init).joined(separator: ", ")); schema is at version \(migrator.latestVersion)")
        } catch {
            await EmbeddedDatabaseLauncher.close(embedded, logger: logger)
            throw ServeCommand.operatorError(for: error, server: .init())
        }
    }
}
