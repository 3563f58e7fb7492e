import FamilySyncPostgres
import Logging
import PostgresNIO

/// Runs `body` with a running client of a fresh test database, and stops the client afterwards.
public func withTestDatabase<Result: Sendable>(
    migrated: Bool = true,
    isolation: TestIsolation = .families,
    _ body: (PostgresClient, DatabaseURL) async throws -> Result
) async throws -> Result {
    // In a full run hundreds of tests ask for a database at once, and each CREATE DATABASE waits
    // for the one before it: minutes on a busy machine, so this wait is named but not a test's.
    let url = try await OpenWaits.during("a fresh test database", limit: .seconds(1_800)) {
        try await TestPostgres.shared.makeDatabase(migrated: migrated, isolation: isolation)
    }
    var configuration = url.clientConfiguration()
    configuration.options.maximumConnections = 8
    // As TestServer's: at the suite's peak a backend can take longer than 10 s to start.
    configuration.options.connectTimeout = .seconds(30)
    let client = PostgresClient(configuration: configuration, backgroundLogger: testLogger)
    let outcome: Swift.Result<Result, any Error>
    do {
        outcome = .success(try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            // As a test server's body: a hang names itself and ends the run (a Citus pass once
            // stalled in such a test with nothing to say which).
            return try await OpenWaits.during("the test's body on its test database", limit: .seconds(900)) { try await body(client, url) }
        })
    } catch {
        outcome = .failure(error)
    }
    await TestPostgres.shared.dropDatabase(url)
    return try outcome.get()
}
