import FamilySyncCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The serving pool: connections kept per event loop, as Vapor keeps them, so that a request's
/// handler, its connection and its answer share a thread where they can. A request leases a
/// connection of its own channel's loop (`preferredLoop`, set per request), opens one there while
/// the pool is under its limit, and otherwise takes an idle one of another loop or waits for one.
///
/// It replaces PostgresNIO's `PostgresClient` on the request path: a primary-key read leased from
/// it, with the deadline raced around the lease, cost 152 µs of server CPU against 89 µs here
/// (Benchmarks/README.md, "FamilySync on its own pool"). It keeps the rules the serving pool had
/// (docs/operations.md, "A database that is away" and "Connections"):
/// - connections are opened as requests need them, again after a failure, and closed after a
///   minute idle; none is held open, and none is kept alive by a query;
/// - a lease waits at most its deadline, then answers `TRY_AGAIN_LATER` saying why: the pool at its
///   limit while this instance holds connections (`poolExhausted`), the database away when it
///   holds none (`databaseUnavailable`); while connecting fails and nothing is open, a lease
///   answers at once instead of waiting;
/// - a connection that has closed fails the lease's next statement (`databaseUnavailable`) instead
///   of taking it: PostgresNIO (1.33) never answers a statement written after the close. The
///   lease's work runs on its connection's loop (a task executor preference), where the stores'
///   one way of sending a statement (`PostgresConnection.rows`, `RowStatement.forEachRow`) looks
///   at the connection and writes to it with nothing run between: the close is handled on that
///   thread too;
/// - nothing a dying database does makes it trap.
public final class LoopBoundPool: Service, Sendable {
    /// The loop of the request being served, which its leases prefer (`PreferredLoopMiddleware`).
    @TaskLocal public static var preferredLoop: (any EventLoop)?

    /// The pool's size unless `serve --db-connections` says otherwise (PostgresNIO's default).
    public static let defaultLimit = 20

    /// How long a connection stays open with nothing to do (PostgresNIO's idle timeout).
    public static let idleTimeout: Duration = .seconds(60)

    private let configuration: PostgresConnection.Configuration
    /// The most connections it opens at once.
    public let limit: Int
    private let group: any EventLoopGroup
    /// An executor on each of the group's loops, on which a lease's work runs. A preferred loop
    /// that is not among them (a test's embedded channel's) is not one a connection can be opened on.
    private let executors: EventLoopTaskExecutors
    private let logger: Logger
    private let state = Mutex(PoolState())
    private let idleTimeout: Duration

    /// A pool of at most `limit` connections with `configuration`, on `group`'s loops (Hummingbird's
    /// and PostgresNIO's shared group unless a test says otherwise).
    public init(
        configuration: PostgresConnection.Configuration, limit: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        idleTimeout: Duration = LoopBoundPool.idleTimeout, logger: Logger
    ) {
        precondition(limit > 0, "a pool of no connections")
        self.configuration = configuration
        self.limit = limit
        self.group = group
        self.executors = EventLoopTaskExecutors(group)
        self.idleTimeout = idleTimeout
        self.logger = logger
    }

    /// Connections this instance's requests hold now.
    public var leased: Int { state.withLock { $0.leased } }

    /// What it holds now, for a test that failed or a hang being looked into.
    public var description: String {
        state.withLock { state in
            "open \(state.open), leased \(state.leased), idle \(state.idle.values.map(\.count).reduce(0, +)), waiting \(state.waiters.count), "
                + "failing until \(state.failingUntil.map { "\($0.uptimeNanoseconds / 1_000_000) ms" } ?? "–") (now \(NIODeadline.now().uptimeNanoseconds / 1_000_000) ms)"
        }
    }

    /// Connections open or being opened now.
    public var open: Int { state.withLock { $0.open } }

    /// Closes connections idle past the timeout until shutdown, then closes the pool: waiting
    /// leases fail, idle connections close, and leased ones close as they come back.
    public func run() async throws {
        let sweep = idleTimeout / 6
        try? await cancelWhenGracefulShutdown {
            while true {
                try await TimerSleep.sleep(for: sweep)
                self.closeIdle(since: .now() - TimeAmount(self.idleTimeout))
            }
        }
        shutDown()
    }

    /// Runs `body` with a connection, leased within `wait` or refused with `TRY_AGAIN_LATER`, on the
    /// connection's loop. Once `body` has its connection it is not interrupted.
    public func leasing<Result: Sendable>(
        within wait: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let preferred = Self.preferredLoop.flatMap { executors.executor(for: $0) == nil ? nil : $0 }
        let connection = try await take(on: preferred ?? group.next(), within: wait)
        guard let executor = executors.executor(for: connection.eventLoop) else {
            defer { give(back: connection) }
            return try await body(connection)
        }
        return try await withTaskExecutorPreference(executor) {
            // Given back on the loop, before the task leaves it.
            defer { give(back: connection) }
            return try await body(connection)
        }
    }

    // MARK: Taking and giving back

    /// An idle connection of `loop`, a new one on it, an idle one of another loop, or the first
    /// that comes back or is opened within `wait`.
    private func take(on loop: any EventLoop, within wait: Duration) async throws -> PostgresConnection {
        let now = NIODeadline.now()
        let first = try state.withLock { state throws(FamilySyncError) -> Grant? in
            if state.isShutDown { throw TryAgainReason.databaseUnavailable.error }
            if let connection = state.popIdle(on: loop) {
                state.leased += 1
                return .connection(connection)
            }
            let failing = state.failingUntil.map { now < $0 } ?? false
            if state.open < limit && !failing {
                state.open += 1
                return .open
            }
            if let connection = state.popIdle(on: nil) {
                state.leased += 1
                return .connection(connection)
            }
            // Connecting failed a moment ago: with nothing open, nothing will come back.
            if failing && state.open == 0 { throw TryAgainReason.databaseUnavailable.error }
            return nil
        }
        switch first {
        case .connection(let connection): return connection
        case .open:
            connect(on: loop)
            return try await waitForConnection(on: loop, opening: true, within: wait)
        case nil:
            return try await waitForConnection(on: loop, opening: false, within: wait)
        }
    }

    /// Waits for a connection given back, or the one `take` began opening on `loop` if `opening`.
    private func waitForConnection(on loop: any EventLoop, opening: Bool, within wait: Duration) async throws -> PostgresConnection {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PostgresConnection, any Error>) in
                let deadline = loop.scheduleTask(in: TimeAmount(wait)) { self.expire(id) }
                let early: Result<PostgresConnection, any Error>? = state.withLock { state in
                    if state.isShutDown { return .failure(TryAgainReason.databaseUnavailable.error) }
                    // Checked under the lock that the cancellation handler takes too.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    // What changed since `take` looked: a connection opened or given back, or
                    // the one opened for this lease failed.
                    if let connection = state.popIdle(on: opening ? loop : nil) {
                        state.leased += 1
                        return .success(connection)
                    }
                    if state.open == 0, let failing = state.failingUntil, NIODeadline.now() < failing {
                        return .failure(TryAgainReason.databaseUnavailable.error)
                    }
                    state.waiters.append(Waiter(id: id, loop: loop, continuation: continuation, deadline: deadline))
                    return nil
                }
                if let early {
                    deadline.cancel()
                    continuation.resume(with: early)
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.removeWaiter(id) }
            waiter?.deadline.cancel()
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// A waiter whose deadline passed before a connection came.
    private func expire(_ id: Int) {
        let now = NIODeadline.now()
        let (waiter, reason, slow) = state.withLock { state -> (Waiter?, TryAgainReason, (connecting: Int, leases: Int)?) in
            guard let waiter = state.removeWaiter(id) else { return (nil, .databaseUnavailable, nil) }
            let reason = state.leased > 0 ? TryAgainReason.poolExhausted : .databaseUnavailable
            // Nothing leased, and the connections being opened not open yet: the database is
            // slow to take a connection, which no other line says. A line a second at most, with
            // the leases it stands for.
            let connecting = state.open - state.leased - state.idle.values.reduce(0) { $0 + $1.count }
            guard reason == .databaseUnavailable && connecting > 0 else { return (waiter, reason, nil) }
            state.slowConnectLeases += 1
            if let last = state.slowConnectLoggedAt, now - last < .seconds(1) { return (waiter, reason, nil) }
            defer { state.slowConnectLeases = 0 }
            state.slowConnectLoggedAt = now
            return (waiter, reason, (connecting, state.slowConnectLeases))
        }
        guard let waiter else { return }
        if let slow {
            logger.warning(Self.slowConnectMessage, metadata: ["connecting": "\(slow.connecting)", "leases": "\(slow.leases)"])
        }
        waiter.continuation.resume(throwing: reason.error)
    }

    /// Logged when a connection could not be opened, with the reason.
    public static let connectFailedMessage: Logger.Message = "database connection failed"
    /// Logged when a lease's wait ran out while its connection was still being opened (a line a
    /// second at most, `leases` counting the leases since the last).
    public static let slowConnectMessage: Logger.Message = "database connection not opened within the lease wait"

    /// A connection back from its lease: to the oldest waiter, or idle on its loop; closed if the
    /// pool is shutting down; dropped if it closed meanwhile.
    private func give(back connection: PostgresConnection) {
        let action = state.withLock { state -> PoolAction in
            state.leased -= 1
            return state.place(connection, limit: limit)
        }
        perform(action)
    }

    // MARK: Opening and closing

    /// Opens a connection on `loop` (counted in `open` already) for whoever waits first.
    private func connect(on loop: any EventLoop) {
        let id = state.withLock { state in
            defer { state.nextConnection += 1 }
            return state.nextConnection
        }
        let configuration = configuration
        let logger = logger
        Task {
            do {
                let connection = try await PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: logger)
                connection.closeFuture.whenComplete { _ in self.closed(connection) }
                let action = state.withLock { state in
                    state.failingUntil = nil
                    state.backoff = PoolState.firstBackoff
                    return state.place(connection, limit: limit)
                }
                perform(action)
            } catch {
                // A warning: until the backoff passes, this pool answers 503 when nothing is
                // open, and this line is an operator's only word of why.
                logger.warning(Self.connectFailedMessage, metadata: ["error": "\(DatabaseErrorTranslation.describeForOperator(error))"])
                let (failed, action) = state.withLock { state in
                    state.open -= 1
                    state.failingUntil = .now() + TimeAmount(state.backoff)
                    state.backoff = min(state.backoff * 2, PoolState.lastBackoff)
                    // With nothing open, nothing will come back to the waiters: each gets the
                    // failure now. Otherwise the one this connection was opened for does.
                    let failed = state.open == 0 ? state.waiters : Array(state.waiters.prefix(1))
                    state.waiters.removeFirst(failed.count)
                    return (failed, state.openForWaiters(limit: limit))
                }
                let refusal = DatabaseErrorTranslation.translate(error) ?? TryAgainReason.databaseUnavailable.error
                for waiter in failed {
                    waiter.deadline.cancel()
                    waiter.continuation.resume(throwing: refusal)
                }
                perform(action)
            }
        }
    }

    /// A connection that closed while idle: dropped (a leased one is dropped when it comes back).
    private func closed(_ connection: PostgresConnection) {
        let action = state.withLock { state -> PoolAction in
            guard state.removeIdle(connection) else { return .nothing }
            state.open -= 1
            return state.openForWaiters(limit: limit)
        }
        perform(action)
    }

    private func closeIdle(since oldest: NIODeadline) {
        let stale = state.withLock { $0.takeIdle(usedBefore: oldest) }
        for connection in stale { let _: EventLoopFuture<Void> = connection.close() }
    }

    private func shutDown() {
        let (idle, waiters) = state.withLock { state in
            state.isShutDown = true
            defer { state.waiters = [] }
            return (state.takeIdle(usedBefore: .distantFuture), state.waiters)
        }
        for waiter in waiters {
            waiter.deadline.cancel()
            waiter.continuation.resume(throwing: TryAgainReason.databaseUnavailable.error)
        }
        for connection in idle { let _: EventLoopFuture<Void> = connection.close() }
    }

    private func perform(_ action: PoolAction) {
        switch action {
        case .nothing: break
        case .hand(let connection, to: let waiter):
            waiter.deadline.cancel()
            waiter.continuation.resume(returning: connection)
        case .close(let connection): let _: EventLoopFuture<Void> = connection.close()
        case .open(let loop): connect(on: loop)
        }
    }
}

extension LoopBoundPool {
    fileprivate enum Grant { case connection(PostgresConnection), open }

    fileprivate struct Waiter {
        let id: Int
        let loop: any EventLoop
        let continuation: CheckedContinuation<PostgresConnection, any Error>
        let deadline: Scheduled<Void>
    }

    /// What to do outside the lock once the pool's state has changed.
    fileprivate enum PoolAction {
        case nothing
        case hand(PostgresConnection, to: Waiter)
        case close(PostgresConnection)
        case open(on: any EventLoop)
    }

    fileprivate struct Idle {
        let connection: PostgresConnection
        let since: NIODeadline
    }

    fileprivate struct PoolState {
        static let firstBackoff: Duration = .milliseconds(100)
        static let lastBackoff: Duration = .seconds(2)

        /// Idle connections by loop, the most recently used last.
        var idle: [ObjectIdentifier: [Idle]] = [:]
        /// Connections open or being opened.
        var open = 0
        var leased = 0
        var waiters: [Waiter] = []
        var nextWaiter = 0
        var nextConnection = 0
        /// When the last slow connect was logged, and the leases it ran out since.
        var slowConnectLoggedAt: NIODeadline?
        var slowConnectLeases = 0
        /// After a failed connect, no other is tried before this (doubling up to `lastBackoff`).
        var failingUntil: NIODeadline?
        var backoff = firstBackoff
        var isShutDown = false

        /// An idle connection of `loop`, or of any loop if nil; closed ones met on the way are
        /// dropped.
        mutating func popIdle(on loop: (any EventLoop)?) -> PostgresConnection? {
            while let key = loop.map({ ObjectIdentifier($0) }) ?? idle.first(where: { !$0.value.isEmpty })?.key, let entry = idle[key]?.popLast() {
                guard entry.connection.isClosed else { return entry.connection }
                open -= 1
            }
            return nil
        }

        mutating func removeIdle(_ connection: PostgresConnection) -> Bool {
            let loop = ObjectIdentifier(connection.eventLoop)
            guard let index = idle[loop]?.firstIndex(where: { $0.connection === connection }) else { return false }
            idle[loop]?.remove(at: index)
            return true
        }

        mutating func takeIdle(usedBefore oldest: NIODeadline) -> [PostgresConnection] {
            var taken: [PostgresConnection] = []
            for loop in idle.keys {
                idle[loop]?.removeAll { entry in
                    guard entry.since < oldest else { return false }
                    taken.append(entry.connection)
                    return true
                }
            }
            open -= taken.count
            return taken
        }

        mutating func removeWaiter(_ id: Int) -> Waiter? {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index)
        }

        /// A connection no lease holds (not counted in `leased`): to the oldest waiter, idle on its
        /// loop, dropped if it has closed, or closed if the pool has.
        mutating func place(_ connection: PostgresConnection, limit: Int) -> PoolAction {
            if connection.isClosed {
                open -= 1
                return openForWaiters(limit: limit)
            }
            if isShutDown {
                open -= 1
                return .close(connection)
            }
            if !waiters.isEmpty {
                leased += 1
                return .hand(connection, to: waiters.removeFirst())
            }
            idle[ObjectIdentifier(connection.eventLoop), default: []].append(Idle(connection: connection, since: .now()))
            return .nothing
        }

        /// A connection opened for the oldest waiter when the pool has room again.
        mutating func openForWaiters(limit: Int) -> PoolAction {
            guard !isShutDown, let waiter = waiters.first, open < limit else { return .nothing }
            if let failing = failingUntil, NIODeadline.now() < failing { return .nothing }
            open += 1
            return .open(on: waiter.loop)
        }
    }
}
