import FamilySyncCore
import Logging
import PostgresNIO

/// The serving pool as the stores use it: its transactions and leases, what this instance has
/// leased of it now (to tell a busy pool from a database that is away), and the families' turns
/// for writing (`FamilyWriteQueue`). One per instance, shared by every store.
public struct Database: Sendable {
    /// The pool `serve` runs; a service of the application.
    public let pool: LoopBoundPool
    public let families: FamilyWriteQueue
    /// Connections of the pool this instance's requests hold now (`/metrics`).
    public var leasedConnections: Int { pool.leased }
    /// How long a lease waits by default (`Database.connectionWait` when serving).
    public let leaseWait: Duration

    public init(serving pool: LoopBoundPool, families: FamilyWriteQueue = FamilyWriteQueue(), leaseWait: Duration = Database.connectionWait) {
        self.pool = pool
        self.families = families
        self.leaseWait = leaseWait
    }

    /// How long a request waits for a connection of the pool. PostgresNIO's pool queues a lease
    /// for as long as it cannot connect (a minute, until its circuit breaker trips); a request
    /// answers `TRY_AGAIN_LATER` instead, well inside PROTOCOL §1.1's five seconds.
    public static let connectionWait: Duration = .seconds(3)

    /// One request's transaction. Domain errors thrown inside come out as themselves (PostgresNIO
    /// wraps them), database failures as `TRY_AGAIN_LATER` where they are transient, and
    /// anything else unchanged, for the HTTP layer to answer 500.
    @discardableResult
    public func inTransaction<Result: Sendable>(
        logger: Logger,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await transaction(begin: "BEGIN", logger: logger, body)
    }

    /// A read-only transaction over one snapshot (REPEATABLE READ): every query of `body` sees the
    /// same committed state, so a change token read with the rows covers exactly those rows.
    public func inSnapshot<Result: Sendable>(
        logger: Logger,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger, body)
    }

    /// `begin`, `body`, COMMIT on a leased connection; a failed body's transaction is ended as
    /// `rollBack(after:)` says.
    private func transaction<Result: Sendable>(
        begin: PostgresQuery, logger: Logger, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await leasing { connection in
            try await connection.run(begin, logger: logger)
            do {
                let result = try await body(connection)
                try await connection.run("COMMIT", logger: logger)
                return result
            } catch {
                await connection.rollBack(after: error, logger: logger)
                throw error
            }
        }
    }

    /// One statement outside a transaction, its rows read in full.
    @discardableResult
    public func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await leasing { connection in
            try await connection.rows(query, logger: logger)
        }
    }

    /// Runs `body` on a connection of the pool, if one can be had within `wait`; otherwise, and
    /// for every failure that means "the database is away", `TRY_AGAIN_LATER`, saying which
    /// (`TryAgainReason`): the pool at its limit while connections of this instance are in use,
    /// the database unavailable when none is. Once `body` has its connection it is not
    /// interrupted: a request that began its work finishes it or fails on its own, so a 503 never
    /// hides a write that happened.
    public func leasing<Result: Sendable>(
        within wait: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let wait = wait ?? leaseWait
        // The wait for a connection, as a span of its own when tracing is on; ended when the
        // connection comes, or here when none came.
        let waiting = Traced.start("db.lease_wait")
        defer { waiting?.end() }
        do {
            return try await pool.leasing(within: wait) { connection in
                waiting?.end()
                return try await body(connection)
            }
        } catch {
            // A no-op once the connection came: only a lease refused marks the span failed.
            let error = DatabaseErrorTranslation.translate(error) ?? error
            waiting?.end(failing: error)
            throw error
        }
    }
}
