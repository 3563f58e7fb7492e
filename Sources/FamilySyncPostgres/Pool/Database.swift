import FamilySyncCore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Where a serving instance leases its connections: its own `LoopBoundPool`, or PostgresNIO's
/// `PostgresClient` as it leased before (the harnesses' baseline; tests that drive the stores
/// directly). Either is a service of the application.
public enum ServingPool: Sendable {
    case loopBound(LoopBoundPool)
    case postgresClient(PostgresClient, size: Int)

    public var service: any Service {
        switch self {
        case .loopBound(let pool): pool
        case .postgresClient(let client, _): client
        }
    }

    /// The most connections it opens.
    public var size: Int {
        switch self {
        case .loopBound(let pool): pool.limit
        case .postgresClient(_, let size): size
        }
    }
}

/// The serving pool as the stores use it: its transactions and leases, what this instance has
/// leased of it now (to tell a busy pool from a database that is away), and the families' turns
/// for writing (`FamilyWriteQueue`). One per instance, shared by every store.
public struct Database: Sendable {
    private enum Connections {
        case pool(LoopBoundPool)
        case client(PostgresClient, LeasedConnections)
    }

    private let connections: Connections
    public let families: FamilyWriteQueue
    /// Connections of the pool this instance's requests hold now (`/metrics`).
    public var leasedConnections: Int {
        switch connections {
        case .pool(let pool): pool.leased
        case .client(_, let leased): leased.count
        }
    }
    /// How long a lease waits by default (`Database.connectionWait` when serving).
    public let leaseWait: Duration

    public init(serving pool: ServingPool, families: FamilyWriteQueue = FamilyWriteQueue(), leaseWait: Duration = Database.connectionWait) {
        switch pool {
        case .loopBound(let pool): self.init(.pool(pool), families: families, leaseWait: leaseWait)
        case .postgresClient(let client, _): self.init(client: client, families: families, leaseWait: leaseWait)
        }
    }

    public init(client: PostgresClient, families: FamilyWriteQueue = FamilyWriteQueue(), leaseWait: Duration = Database.connectionWait) {
        self.init(.client(client, LeasedConnections()), families: families, leaseWait: leaseWait)
    }

    private init(_ connections: Connections, families: FamilyWriteQueue, leaseWait: Duration) {
        self.connections = connections
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
            switch connections {
            case .pool(let pool):
                return try await pool.leasing(within: wait) { connection in
                    waiting?.end()
                    return try await body(connection)
                }
            case .client(let client, let leased):
                return try await Self.leasing(client, leased, within: wait, waiting: waiting, body)
            }
        } catch {
            // A no-op once the connection came: only a lease refused marks the span failed.
            let error = DatabaseErrorTranslation.translate(error) ?? error
            waiting?.end(failing: error)
            throw error
        }
    }

    /// A lease of PostgresNIO's own pool, raced against its deadline, with a watchdog beside the
    /// work (`failingWhenClosed`): off the connection's loop, a statement's look at its connection
    /// (`checkOpen`) cannot rule out a close before the write, as it does in a `LoopBoundPool` lease.
    private static func leasing<Result: Sendable>(
        _ client: PostgresClient, _ leased: LeasedConnections, within wait: Duration, waiting: Traced.Wait?,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let lease = LeaseRace()
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                try await client.withConnection { connection in
                    guard lease.claim(.leased) else { throw CancellationError() }
                    waiting?.end()
                    return try await leased.holding { try await connection.failingWhenClosed { try await body(connection) } }
                }
            }
            group.addTask {
                try await TimerSleep.sleep(for: wait)
                guard lease.claim(.timedOut) else { return nil }
                throw (leased.count > 0 ? TryAgainReason.poolExhausted : .databaseUnavailable).error
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let result = next { return result }
            }
            throw CancellationError()
        }
    }
}

/// How many connections of the pool this instance's requests hold now. A lease that waited in
/// vain while some are held met a busy pool; while none are, a database that cannot be reached
/// (the pool's connections to it are gone and new ones are not made).
private final class LeasedConnections: Sendable {
    private let held = Atomic<Int>(0)

    var count: Int { held.load(ordering: .relaxed) }

    func holding<Result>(_ body: () async throws -> Result) async throws -> Result {
        held.add(1, ordering: .relaxed)
        defer { held.subtract(1, ordering: .relaxed) }
        return try await body()
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
