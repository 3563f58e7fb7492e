import FamilySyncPostgres
import PostgresNIO

/// Runs `body` on a fresh test database with the stores' `Database` on the pool `serve` runs
/// (`LoopBoundPool`), and a client for the test's own statements beside it. A lease waits as long
/// as a busy test machine takes to open a connection: the three seconds a serving instance waits
/// (`Database.connectionWait`) are for answering clients, and the outage and overload tests hold
/// the server to them; here a slow connect is the machine's, not a database away.
public func withServingDatabase<Result: Sendable>(
    migrated: Bool = true,
    isolation: TestIsolation = .families,
    _ body: (Database, PostgresClient, DatabaseURL) async throws -> Result
) async throws -> Result {
    try await withTestDatabase(migrated: migrated, isolation: isolation) { client, url in
        try await withServingPool(url, limit: 8) { pool in
            try await body(Database(serving: pool, leaseWait: .seconds(60)), client, url)
        }
    }
}

/// A running `LoopBoundPool` of `limit` on `url` for `body` (its idle sweep too), shut down after
/// it (its leases then refuse). Connects wait as long as the test database's client's.
public func withServingPool<Result: Sendable>(
    _ url: DatabaseURL, limit: Int, idleTimeout: Duration = LoopBoundPool.idleTimeout, _ body: (LoopBoundPool) async throws -> Result
) async throws -> Result {
    var configuration = try url.connectionConfiguration()
    configuration.options.connectTimeout = .seconds(30)
    let pool = LoopBoundPool(configuration: configuration, limit: limit, idleTimeout: idleTimeout, logger: testLogger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await pool.run() }
        defer { group.cancelAll() }
        return try await body(pool)
    }
}
