import AsyncHTTPClient
import CompressNIO
import FamilySyncApp
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncWeb
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import Prometheus
import ServiceLifecycle

struct API: Sendable {
    let base: String
    let http: HTTPClient

    func send<Response: Decodable>(_ method: HTTPMethod, _ path: String, credential: String? = nil, body: some Encodable, as type: Response.Type) async throws -> Response {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let credential { request.headers.add(name: "Authorization", value: "Bearer \(credential)") }
        request.body = .bytes(ByteBuffer(data: try WireCoding.makeEncoder().encode(body)))
        let response = try await http.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        guard response.status.code < 300 else { throw BenchFailure("\(method) \(path): \(response.status) \(String(buffer: bytes))") }
        return try WireCoding.makeDecoder().decode(Response.self, from: Data(bytes.readableBytesView))
    }

    func get<Response: Decodable>(_ path: String, credential: String, as type: Response.Type) async throws -> Response {
        try await measuredGet(path, credential: credential, as: type).response
    }

    /// A GET and the bytes its body took on the wire; with `gzip`, asked for compressed and
    /// inflated here (what the SDK does).
    /// A GET with what it cost on the wire and how long the client took to decode it (inflating included).
    func measuredGet<Response: Decodable>(_ path: String, credential: String, gzip: Bool = false, as type: Response.Type) async throws -> (response: Response, wireBytes: Int, decodeSeconds: Double) {
        var request = HTTPClientRequest(url: base + path)
        request.headers.add(name: "Authorization", value: "Bearer \(credential)")
        if gzip { request.headers.add(name: "Accept-Encoding", value: "gzip") }
        let response = try await http.execute(request, timeout: .seconds(120))
        var bytes = try await response.body.collect(upTo: 256 << 20)
        guard response.status.code < 300 else { throw BenchFailure("GET \(path): \(response.status) \(String(buffer: bytes))") }
        let wireBytes = bytes.readableBytes
        let decodeStart = ContinuousClock.now
        bytes = try AsyncHTTPClientTransport.decoded(bytes, encoding: response.headers.first(name: "Content-Encoding"))
        let decoded = try WireCoding.makeDecoder().decode(Response.self, from: Data(bytes.readableBytesView))
        return (decoded, wireBytes, seconds(.now - decodeStart))
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct Empty: Codable {}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

extension Process {
    /// SIGTERM, then SIGKILL if it is still there after five seconds: how a harness ends a helper
    /// process it started (PgBouncer, Kinto).
    func stopGently() async {
        terminate()
        let deadline = ContinuousClock.now + .seconds(5)
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if isRunning { kill(processIdentifier, SIGKILL) }
    }
}

/// The middle value (the upper of the two middle ones for an even count).
func median(_ values: [Double]) -> Double {
    percentile(values.sorted(), 0.5)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The server in this process, on a loopback port, over the harness's database (`BenchDatabase`:
/// an embedded PostgreSQL in /tmp unless told otherwise): what the in-process harnesses measure.
struct InProcessServer {
    let database: BenchDatabase
    let postgres: PostgresClient
    let group: ServiceGroup
    let running: Task<Void, any Error>
    let port: Int
    let directory: String
    let logger: Logger

    static func start(limits: Limits = Limits(), push: PushSettings? = nil) async throws -> InProcessServer {
        var logger = Logger(label: "familysync.bench")
        logger.logLevel = .warning
        let directory = "/tmp/familysync-bench-\(getpid())"
        let database = try await BenchDatabase.start(directory: directory, logger: logger)
        let url = database.url
        let pool = try url.servingPool(logger: logger)
        // The harness's own client, for what it sets up and checks in the database.
        let postgres = PostgresClient(configuration: url.floorClient(connections: 4), backgroundLogger: logger)
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = buildApplication(
            configuration: {
                var configuration = ServerConfiguration(port: 0, limits: limits, unauthenticatedRateLimit: RateLimit(burst: 1000, perMinute: 1000))
                configuration.deviceRateLimit = RateLimit(burst: 1_000_000_000, perMinute: 1_000_000_000)
                return configuration
            }(),
            dependencies: ServerDependencies(
                pool: pool, listener: try url.connectionConfiguration(), metricsRegistry: PrometheusCollectorRegistry(), logger: logger, push: push
            ),
            modules: [WebDashboard()]
        ) { channel in portContinuation.yield(channel.localAddress?.port ?? 0) }
        let group = ServiceGroup(configuration: .init(services: [postgres, app], logger: logger))
        let running = Task { try await group.run() }
        var portIterator = ports.makeAsyncIterator()
        let port = await portIterator.next()!
        return InProcessServer(database: database, postgres: postgres, group: group, running: running, port: port, directory: directory, logger: logger)
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func stop() async throws {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        try await database.stop()
    }
}

/// For harnesses whose server runs in a process of its own (`BenchServer.launch`): the harness's
/// database (`BenchDatabase`) and an HTTP client for `connections` requests at once.
struct SeparateServerBench {
    let database: BenchDatabase
    let url: DatabaseURL
    let client: HTTPClient
    let directory: String

    static func start(connections: Int, databaseConnections: Int = 200) async throws -> SeparateServerBench {
        var logger = Logger(label: "familysync.bench")
        logger.logLevel = .warning
        let directory = "/tmp/familysync-bench-\(getpid())"
        let database = try await BenchDatabase.start(directory: directory, maxConnections: databaseConnections, logger: logger)
        let url = database.url
        var http = HTTPClient.Configuration(timeout: .init(connect: .seconds(30), read: .seconds(120)))
        http.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections + 4
        return SeparateServerBench(database: database, url: url, client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: http), directory: directory)
    }

    func stop() async throws {
        try await client.shutdown()
        try await database.stop()
    }
}

extension API {
    /// A new family, and the path that fetches its `family` zone's changes with the current
    /// token: a "nothing new" fetch, again and again.
    func nothingNewFetch() async throws -> (credential: String, path: String) {
        let family = try await send(
            .POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Load", platform: .ios, timeZone: "UTC")), as: CreateFamilyResponse.self
        )
        let path = "/v1/zones/family/changes"
        let token = try await get(path, credential: family.credential, as: ZoneChangesResponse.self).changeToken
        return (family.credential, "\(path)?since=\(token.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? token)")
    }
}
