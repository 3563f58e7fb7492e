import FamilySyncCore
import FamilySyncPostgres
import FamilySyncServer
import Logging

/// What the server needs from the database before it listens (the migrations, its secrets), tried
/// again while the database is away, for a minute, as PostgresNIO's pool waited before
/// `LoopBoundPool`: a server started beside its database (a container, a supervisor's restart, a
/// busy cluster whose backends take seconds to start) starts once the database answers. A lease of
/// the serving pool waits only its 3 s, and a start that failed on one left the server down; under
/// the test suite's load it left a test server that never listened. Anything but the database
/// being away (a migration that fails, a bad password) ends the start at once.
package enum StartupRetry {
    package static let limit: Duration = .seconds(60)
    static let firstBackoff: Duration = .milliseconds(100)
    static let lastBackoff: Duration = .seconds(2)

    package static func run<Result>(
        _ what: String, limit: Duration = StartupRetry.limit, logger: Logger, _ body: () async throws -> Result
    ) async throws -> Result {
        let deadline = ContinuousClock.now + limit
        var backoff = firstBackoff
        while true {
            do {
                return try await body()
            } catch where DatabaseErrorTranslation.translate(error)?.code == .tryAgainLater && ContinuousClock.now + backoff < deadline {
                logger.notice("the database is not answering yet; trying again", metadata: [
                    "step": "\(what)", "error": "\(DatabaseErrorTranslation.describeForOperator(error))", "after": "\(backoff)",
                ])
                try await Task.sleep(for: backoff)
                backoff = min(backoff * 2, lastBackoff)
            }
        }
    }
}
