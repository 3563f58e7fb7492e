import FamilySyncPostgres
import Foundation
import Logging
import PostgresNIO

extension DatabaseOptions {
    /// What the one-shot database commands (`migrate`, `expire-change-tokens`) share: the
    /// database these options name, the embedded one started before `body` and stopped after it,
    /// and failures told as `serve` tells them.
    func run<Result>(logging: LoggingOptions, _ body: (DatabaseURL, Logger) async throws -> Result) async throws -> Result {
        let environment = ProcessInfo.processInfo.environment
        let source = try resolve(environment)
        let logger = try logging.bootstrap(environment)
        let (url, embedded) = try await EmbeddedDatabaseLauncher.open(source, logger: logger)
        do {
            let result = try await body(url, logger)
            await EmbeddedDatabaseLauncher.close(embedded, logger: logger)
            return result
        } catch {
            await EmbeddedDatabaseLauncher.close(embedded, logger: logger)
            throw ServeCommand.operatorError(for: error, server: .init())
        }
    }
}
