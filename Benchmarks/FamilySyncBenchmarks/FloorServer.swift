import FamilySyncPostgres
import FamilySyncServer
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// `familysync-bench floor-serve <database url> <wiring> [takeover]`: Hummingbird with one
/// primary-key read (`GET /read`) and one plain `UPDATE` (`GET /update`) of pgbench's
/// `pgbench_accounts`, through the wiring of PostgresNIO named (`FloorWiring`), and `GET /hello`
/// answering "ok" with no database at all. It prints `port=N` and serves until SIGTERM. With
/// `takeover` (read by main.swift before anything runs) Swift's global executor is NIO's event
/// loops. What the floor harness (`FloorBenchmark`) measures each row of its table on.
enum FloorServer {
    static func run(_ arguments: [String]) async throws {
        let logger = { var logger = Logger(label: "familysync.bench.floor"); logger.logLevel = .warning; return logger }()
        let url = try DatabaseURL(arguments[0])
        guard let wiring = FloorWiring(rawValue: arguments[1]) else { throw BenchFailure("unknown wiring \(arguments[1])") }
        let client = PostgresClient(configuration: url.floorClient(connections: FloorWiring.connections), backgroundLogger: logger)
        // FamilySync's pool, which opens connections only for the `pool` wirings.
        let pool = try url.servingPool(connections: FloorWiring.connections, logger: logger)
        let database = Database(serving: pool)
        let perLoop = wiring != .clientPerLoop ? [:] : Dictionary(uniqueKeysWithValues: MultiThreadedEventLoopGroup.singleton.makeIterator().map { loop in
            (ObjectIdentifier(loop), PostgresClient(
                configuration: url.floorClient(connections: FloorWiring.connections / NIOSingletons.groupLoopCountSuggestion), eventLoopGroup: loop, backgroundLogger: logger
            ))
        })
        let loops = try await LoopBoundConnections.open(
            wiring.bindsToLoops ? FloorWiring.connections : 0, configuration: try url.connectionConfiguration(), on: MultiThreadedEventLoopGroup.singleton, logger: logger
        )
        let router = Router(context: FloorContext.self)
        if wiring.runsOnItsLoop { router.add(middleware: OnTheChannelsLoop(executors: EventLoopTaskExecutors(MultiThreadedEventLoopGroup.singleton))) }
        router.get("hello") { _, _ in "ok" }
        for (path, statement) in [("read", FloorWiring.Statement.read), ("update", .update)] {
            router.get(RouterPath(path)) { _, context in
                do {
                    let client = wiring == .clientPerLoop ? perLoop[ObjectIdentifier(context.loop)]! : client
                    return "\(try await wiring.run(statement, aid: .random(in: 1...100_000), client: client, database: database, loops: loops, on: context.loop, logger: logger))"
                } catch {
                    // What failed, for the harness to show; a floor row must have no failures at all.
                    throw HTTPError(.internalServerError, message: String(reflecting: error))
                }
            }
        }
        let app = Application(
            router: router, server: wiring.connectionOnItsLoop ? .http1OnItsLoop(configuration: .init(), group: MultiThreadedEventLoopGroup.singleton) : .http1(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "floor"), services: [client, pool] + Array(perLoop.values),
            onServerRunning: { channel in FileHandle.standardOutput.write(Data("port=\(channel.localAddress?.port ?? 0)\n".utf8)) }, logger: logger
        )
        try await app.runService()
    }
}

/// The ways a handler can reach PostgreSQL that the floor harness compares.
enum FloorWiring: String, CaseIterable {
    /// `PostgresClient.query` with a bind: an unnamed statement, parsed every time.
    case client
    /// `PostgresClient.execute` of a `PostgresPreparedStatement`: parsed once per connection.
    case prepared
    /// As the stores lease now: `Database.leasing` over `LoopBoundPool`, the request's loop
    /// preferred (`PreferredLoopMiddleware`), around the prepared statement.
    case pool
    /// Connections opened on each event loop, a request taking one of its channel's loop; prepared.
    case loop
    /// `loop`, and the handler run on its channel's loop (a task executor preference).
    case loopExecutor = "loop-executor"
    /// `loop`, and the connection's whole task on its loop (`ConnectionOnItsLoop`): the request
    /// read, the handler and the answer written on the thread of its statement's connection.
    case loopConnection = "loop-connection"
    /// `pool`, and the connection's whole task on its loop: as FamilySync serves.
    case poolConnection = "pool-connection"
    /// A `PostgresClient` per event loop (its pool's connections all on that loop), a request
    /// taking its channel's loop's client: `loop` with PostgresNIO's own pool.
    case clientPerLoop = "client-per-loop"

    static let connections = 16

    var bindsToLoops: Bool { self == .loop || self == .loopExecutor || self == .loopConnection }
    var runsOnItsLoop: Bool { self == .loopExecutor }
    var connectionOnItsLoop: Bool { self == .loopConnection || self == .poolConnection }

    enum Statement { case read, update }

    func run(
        _ statement: Statement, aid: Int32, client: PostgresClient, database: Database, loops: LoopBoundConnections, on loop: any EventLoop, logger: Logger
    ) async throws -> Int32 {
        switch self {
        case .client:
            switch statement {
            case .read:
                for try await value in try await client.query("SELECT abalance FROM pgbench_accounts WHERE aid = \(aid)", logger: logger).decode(Int32.self) { return value }
            case .update:
                try await client.query("UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = \(aid)", logger: logger)
            }
            return 0
        case .prepared, .clientPerLoop:
            return try await Self.prepared(statement, aid: aid, on: ClientRunner(client: client, logger: logger))
        case .pool, .poolConnection:
            return try await LoopBoundPool.$preferredLoop.withValue(loop) {
                try await database.leasing { connection in try await Self.prepared(statement, aid: aid, on: ConnectionRunner(connection: connection, logger: logger)) }
            }
        case .loop, .loopExecutor, .loopConnection:
            return try await loops.leasing(on: loop) { connection in try await Self.prepared(statement, aid: aid, on: ConnectionRunner(connection: connection, logger: logger)) }
        }
    }

    /// Runs the statement through `connection`: a `PostgresClient` or one `PostgresConnection`.
    private static func prepared(_ statement: Statement, aid: Int32, on connection: some PreparedStatementRunner) async throws -> Int32 {
        switch statement {
        case .read: try await connection.first(FloorRead(aid: aid))
        case .update: try await connection.first(FloorUpdate(aid: aid))
        }
    }
}

/// A floor statement: one `int4` bound, one `int4` answered.
protocol FloorStatement: PostgresPreparedStatement where Row == Int32 {
    var aid: Int32 { get }
}

extension FloorStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(aid)
        return bindings
    }
    func decodeRow(_ row: PostgresRow) throws -> Int32 { try row.decode(Int32.self) }
}

/// pgbench -S's read, prepared.
struct FloorRead: FloorStatement {
    static let name = "floor_read"
    static let sql = "SELECT abalance FROM pgbench_accounts WHERE aid = $1"
    var aid: Int32
}

/// A plain one-row `UPDATE`, prepared: what the quiet heartbeat is held to.
struct FloorUpdate: FloorStatement {
    static let name = "floor_update"
    static let sql = "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = $1 RETURNING abalance"
    var aid: Int32
}

struct FloorContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let loop: any EventLoop
    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        loop = source.channel.eventLoop
    }
}

/// Runs the rest of the responder chain with its channel's event loop as the task's executor.
struct OnTheChannelsLoop: RouterMiddleware {
    let executors: EventLoopTaskExecutors
    func handle(_ request: Request, context: FloorContext, next: (Request, FloorContext) async throws -> Response) async throws -> Response {
        try await withTaskExecutorPreference(executors.executor(for: context.loop)) { try await next(request, context) }
    }
}

/// Where a prepared statement runs: the pool, or a connection already held.
protocol PreparedStatementRunner: Sendable {
    func first<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> Int32 where Statement.Row == Int32
}

struct ClientRunner: PreparedStatementRunner {
    let client: PostgresClient
    let logger: Logger
    func first<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> Int32 where Statement.Row == Int32 {
        for try await value in try await client.execute(statement, logger: logger) { return value }
        return 0
    }
}

struct ConnectionRunner: PreparedStatementRunner {
    let connection: PostgresConnection
    let logger: Logger
    func first<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> Int32 where Statement.Row == Int32 {
        for try await value in try await connection.execute(statement, logger: logger) { return value }
        return 0
    }
}

extension DatabaseURL {
    /// PostgresNIO's own pool for the floor's rows and the harnesses' own statements: up to
    /// `connections`, opened as needed, none kept alive by a query (as `LoopBoundPool` keeps its own).
    func floorClient(connections: Int) -> PostgresClient.Configuration {
        var configuration = clientConfiguration()
        configuration.options.maximumConnections = connections
        configuration.options.minimumConnections = 0
        configuration.options.keepAliveBehavior = nil
        return configuration
    }
}
