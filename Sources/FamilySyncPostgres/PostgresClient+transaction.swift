import FamilySyncCore
import Logging
import PostgresNIO
import Synchronization

extension PostgresClient {
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
            try await connection.query(begin, logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
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
            try await connection.query(query, logger: logger).collect()
        }
    }

    /// Runs `body` on a connection of the pool, if one can be had within `wait`; otherwise, and
    /// for every failure that means "the database is away", `TRY_AGAIN_LATER`. Once `body` has
    /// its connection it is not interrupted: a request that began its work finishes it or fails
    /// on its own, so a 503 never hides a write that happened.
    public func leasing<Result: Sendable>(
        within wait: Duration = PostgresClient.connectionWait,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let lease = LeaseRace()
        do {
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    try await self.withConnection { connection in
                        guard lease.claim(.leased) else { throw CancellationError() }
                        return try await connection.failingWhenClosed { try await body(connection) }
                    }
                }
                group.addTask {
                    try await TimerSleep.sleep(for: wait)
                    guard lease.claim(.timedOut) else { return nil }
                    throw FamilySyncError.unavailable("The database is unavailable.")
                }
                defer { group.cancelAll() }
                while let next = try await group.next() {
                    if let result = next { return result }
                }
                throw CancellationError()
            }
        } catch let error as FamilySyncError {
            throw error
        } catch {
            throw DatabaseErrorTranslation.translate(error) ?? error
        }
    }
}

extension PostgresConnection {
    /// Ends a failed transaction. Not on a connection that is gone, where the server has already
    /// discarded the transaction: PostgresNIO (1.33) never answers a query written to a closed
    /// connection, so the ROLLBACK that its own `withTransaction` sends there hung the request,
    /// its pool lease and, at shutdown, the server, whenever the database went away in the
    /// middle of a transaction.
    func rollBack(after error: any Error, logger: Logger) async {
        guard !isClosed, !DatabaseErrorTranslation.isConnectionLost(error) else { return }
        _ = try? await query("ROLLBACK", logger: logger)
    }
}

/// Who won between a lease and its deadline: exactly one of them.
private final class LeaseRace: Sendable {
    enum Outcome { case leased, timedOut }
    private let winner = Mutex<Outcome?>(nil)

    /// True for the first claim only.
    func claim(_ outcome: Outcome) -> Bool {
        winner.withLock { winner in
            guard winner == nil else { return false }
            winner = outcome
            return true
        }
    }
}

extension PostgresRowSequence {
    /// The rows of a query as values, decoded by `transform`.
    func collect<Value>(_ transform: (PostgresRow) throws -> Value) async throws -> [Value] {
        var values: [Value] = []
        for try await row in self { values.append(try transform(row)) }
        return values
    }
}
