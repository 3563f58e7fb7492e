import FamilySyncCore
import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization
import Testing

/// The serving pool's rules (docs/operations.md, "Connections"), on a real database: connections
/// on the request's loop and used again, a wait bounded by its deadline and saying why, a
/// database away answered at once, a connection that closes under a lease failing that lease
/// instead of hanging it, idle connections closed, and a pool that has shut down refusing.
@Suite struct LoopBoundPoolTests {
    /// A pool of `limit` on a fresh test database, running (its idle sweep) for `body`.
    private func withPool<Result: Sendable>(
        limit: Int, idleTimeout: Duration = LoopBoundPool.idleTimeout,
        _ body: (LoopBoundPool, PostgresClient) async throws -> Result
    ) async throws -> Result {
        try await withTestDatabase { client, url in
            try await withServingPool(url, limit: limit, idleTimeout: idleTimeout) { pool in try await body(pool, client) }
        }
    }

    private func backend(_ connection: PostgresConnection) async throws -> Int {
        try await connection.rows("SELECT pg_backend_pid()", logger: testLogger).decode(Int.self).first!
    }

    @Test func aLeaseTakesAConnectionOfItsLoopAndTheNextOneUsesItAgain() async throws {
        try await withPool(limit: 4) { pool, _ in
            for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
                let (first, firstLoop) = try await LoopBoundPool.$preferredLoop.withValue(loop) {
                    try await pool.leasing(within: .seconds(60)) { connection in (try await backend(connection), connection.eventLoop) }
                }
                let second = try await LoopBoundPool.$preferredLoop.withValue(loop) {
                    try await pool.leasing(within: .seconds(60)) { connection in try await backend(connection) }
                }
                #expect(firstLoop === loop, "the connection was opened on another loop than the request's")
                #expect(first == second, "a connection idle on the loop was not used again")
            }
            #expect(pool.leased == 0)
        }
    }

    /// A lease's work starts on its connection's loop, before anything it awaits: where a statement
    /// looks at its connection and is written in one turn of the loop.
    @Test func aLeasesWorkStartsOnItsConnectionsLoop() async throws {
        try await withPool(limit: 2) { pool, _ in
            for _ in 0..<20 {
                let onLoop = try await pool.leasing(within: .seconds(60)) { connection in connection.eventLoop.inEventLoop }
                #expect(onLoop)
            }
        }
    }

    /// With every connection held, a lease waits its deadline and says the pool is busy; once one
    /// comes back, the next lease takes it.
    @Test func aPoolAtItsLimitSaysSoAfterTheDeadline() async throws {
        try await withPool(limit: 1) { pool, _ in
            let (released, release) = AsyncStream.makeStream(of: Void.self)
            let (held, holding) = AsyncStream.makeStream(of: Void.self)
            let holder = Task {
                try await pool.leasing(within: .seconds(60)) { _ in
                    holding.yield()
                    for await _ in released { break }
                }
            }
            for await _ in held { break }
            #expect(pool.leased == 1)
            await #expect(throws: TryAgainReason.poolExhausted.error) {
                try await pool.leasing(within: .milliseconds(100)) { _ in }
            }
            release.yield()
            try await holder.value
            let rows = try await pool.leasing(within: .seconds(60)) { connection in try await connection.rows("SELECT 1", logger: testLogger).count }
            #expect(rows == 1)
        }
    }

    /// A waiter is handed the connection another lease gives back, before its deadline.
    @Test func aWaiterGetsTheConnectionGivenBack() async throws {
        try await withPool(limit: 1) { pool, _ in
            let (held, holding) = AsyncStream.makeStream(of: Void.self)
            let holder = Task {
                try await pool.leasing(within: .seconds(60)) { connection in
                    holding.yield()
                    try await connection.run("SELECT pg_sleep(0.2)", logger: testLogger)
                    return try await backend(connection)
                }
            }
            for await _ in held { break }
            let waited = try await pool.leasing(within: .seconds(60)) { connection in try await backend(connection) }
            #expect(waited == (try await holder.value))
        }
    }

    /// A database that cannot be reached: the lease that tried answers `databaseUnavailable`, and
    /// so does the next, at once (no connect is tried again within the backoff), long before its
    /// deadline, which is far off.
    @Test func aDatabaseAwayIsUnavailable() async throws {
        let nowhere = PostgresConnection.Configuration(unixSocketPath: "/tmp/familysync-no-such-db/.s.PGSQL.5432", username: "x", password: nil, database: "x")
        let pool = LoopBoundPool(configuration: nowhere, limit: 4, logger: testLogger)
        for _ in 0..<3 {
            try await failingIfHung(after: .seconds(60), "a lease of a pool whose database is away") {
                let error = await #expect(throws: FamilySyncError.self) {
                    try await pool.leasing(within: .seconds(600)) { _ in }
                }
                #expect(error.flatMap(TryAgainReason.init) == .databaseUnavailable, "\(String(describing: error))")
            }
        }
        #expect(pool.open == 0)
    }

    /// A database that takes the connection and never answers (a socket nobody accepts on): the
    /// lease's wait runs out while its connection is being opened. It answers
    /// `databaseUnavailable` (nothing is leased, so the pool is not busy) and logs the slow
    /// connect, the operator's one word of it.
    @Test func aConnectThatOutlastsTheWaitIsUnavailableAndLogged() async throws {
        let silent = try PortHolder()
        defer { silent.close() }
        let lines = LoggedMessages()
        let logger = Logger(label: "pool") { _ in lines.handler }
        let configuration = PostgresConnection.Configuration(host: "127.0.0.1", port: silent.port, username: "x", password: nil, database: "x", tls: .disable)
        let pool = LoopBoundPool(configuration: configuration, limit: 1, logger: logger)
        let error = try await failingIfHung(after: .seconds(60), "a lease whose connect never ends") {
            await #expect(throws: FamilySyncError.self) { try await pool.leasing(within: .milliseconds(300)) { _ in } }
        }
        #expect(error.flatMap(TryAgainReason.init) == .databaseUnavailable, "\(String(describing: error))")
        #expect(lines.all.contains(LoopBoundPool.slowConnectMessage.description), "\(lines.all)")
    }

    /// The connection closed under a lease (its backend terminated), then a statement: written after
    /// the close, PostgresNIO (1.33) never answers it, so the statement is refused instead
    /// (`checkOpen`, on the connection's loop) and the lease fails `databaseUnavailable` rather
    /// than hanging (it hangs without the refusal); the next lease gets a connection that works.
    @Test func aConnectionClosedUnderALeaseFailsItAndIsReplaced() async throws {
        try await withPool(limit: 1) { pool, client in
            try await failingIfHung(after: .seconds(120), "a lease whose connection closed under it") {
                let error = await #expect(throws: (any Error).self) {
                    try await Database(serving: pool).leasing(within: .seconds(60)) { connection in
                        let pid = try await backend(connection)
                        try await client.query("SELECT pg_terminate_backend(\(Int32(pid)))", logger: testLogger)
                        while !connection.isClosed { try await Task.sleep(for: .milliseconds(10)) }
                        try await connection.run("SELECT 1", logger: testLogger)
                    }
                }
                #expect(error as? FamilySyncError == TryAgainReason.databaseUnavailable.error, "\(String(reflecting: error))")
            }
            let rows = try await pool.leasing(within: .seconds(60)) { connection in try await connection.rows("SELECT 1", logger: testLogger).count }
            #expect(rows == 1)
            #expect(pool.open == 1)
        }
    }

    /// Connections idle past the timeout are closed by the sweep; the next lease opens another.
    @Test func idleConnectionsAreClosed() async throws {
        try await withPool(limit: 2, idleTimeout: .milliseconds(300)) { pool, client in
            let first = try await pool.leasing(within: .seconds(60)) { connection in try await backend(connection) }
            try await failingIfHung(after: .seconds(60), "the idle connection closing") {
                while pool.open > 0 { try await Task.sleep(for: .milliseconds(50)) }
                while try await client.query("SELECT 1 FROM pg_stat_activity WHERE pid = \(first)", logger: testLogger).collect().count > 0 {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            let second = try await pool.leasing(within: .seconds(60)) { connection in try await backend(connection) }
            #expect(second != first)
        }
    }

    /// Once the pool has shut down, its idle connections are closed and a lease is refused.
    @Test func aPoolShutDownRefusesLeases() async throws {
        try await withTestDatabase { _, url in
            let pool = LoopBoundPool(configuration: try url.connectionConfiguration(), limit: 2, logger: testLogger)
            let group = ServiceGroup(configuration: .init(services: [pool], logger: testLogger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                _ = try await pool.leasing(within: .seconds(60)) { connection in try await connection.rows("SELECT 1", logger: testLogger) }
                #expect(pool.open == 1)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(pool.open == 0)
            await #expect(throws: TryAgainReason.databaseUnavailable.error) {
                try await pool.leasing(within: .seconds(60)) { _ in }
            }
        }
    }
}

/// The messages a logger was given, for a test that checks what was logged.
private final class LoggedMessages: Sendable {
    private let messages = Mutex<[String]>([])
    var all: [String] { messages.withLock { $0 } }
    var handler: EventLogHandler {
        EventLogHandler { event in self.messages.withLock { $0.append(event.message.description) } }
    }
}
