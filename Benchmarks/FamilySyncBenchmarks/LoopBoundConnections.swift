import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import FamilySyncPostgres
import Synchronization

/// A pool per event loop, as Vapor keeps one: a request takes a connection of its own channel's
/// loop, so that its handler, its connection and its answer can share one thread. The floor
/// harness's `loop` wirings.
final class LoopBoundConnections: Sendable {
    private let pools: [ObjectIdentifier: LoopPool]

    private init(pools: [ObjectIdentifier: LoopPool]) { self.pools = pools }

    /// `count` connections, spread over the group's loops in turn.
    static func open(
        _ count: Int, configuration: PostgresConnection.Configuration, on group: MultiThreadedEventLoopGroup, logger: Logger
    ) async throws -> LoopBoundConnections {
        let loops = Array(group.makeIterator())
        var pools: [ObjectIdentifier: LoopPool] = [:]
        for index in 0..<count {
            let loop = loops[index % loops.count]
            let connection = try await PostgresConnection.connect(on: loop, configuration: configuration, id: index, logger: logger)
            let pool = pools[ObjectIdentifier(loop)] ?? LoopPool()
            pool.add(connection)
            pools[ObjectIdentifier(loop)] = pool
        }
        return LoopBoundConnections(pools: pools)
    }

    func leasing<Result: Sendable>(on loop: any EventLoop, _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        guard let pool = pools[ObjectIdentifier(loop)] else { throw BenchFailure("no connections on this loop") }
        let connection = await pool.take()
        defer { pool.give(connection) }
        return try await body(connection)
    }
}

private final class LoopPool: Sendable {
    private struct State {
        var idle: [PostgresConnection] = []
        var waiting: [CheckedContinuation<PostgresConnection, Never>] = []
    }
    private let state = Mutex(State())

    func add(_ connection: PostgresConnection) { state.withLock { $0.idle.append(connection) } }

    func take() async -> PostgresConnection {
        if let connection = state.withLock({ $0.idle.popLast() }) { return connection }
        return await withCheckedContinuation { continuation in
            let connection: PostgresConnection? = state.withLock { state in
                if let connection = state.idle.popLast() { return connection }
                state.waiting.append(continuation)
                return nil
            }
            if let connection { continuation.resume(returning: connection) }
        }
    }

    func give(_ connection: PostgresConnection) {
        let waiter: CheckedContinuation<PostgresConnection, Never>? = state.withLock { state in
            if state.waiting.isEmpty {
                state.idle.append(connection)
                return nil
            }
            return state.waiting.removeFirst()
        }
        waiter?.resume(returning: connection)
    }
}
