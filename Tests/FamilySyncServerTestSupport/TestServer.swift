import AsyncHTTPClient
import FamilySyncApp
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncTestSupport
import FamilySyncWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Metrics
import NIOCore
import PostgresNIO
import Prometheus
import ServiceLifecycle
import Synchronization
import Testing
import Tracing

/// A server over a fresh database with a manual clock, listening on a real port, and a JSON
/// client for it. Real HTTP rather than Hummingbird's in-memory router: long polls watch their
/// connection, and tests hold several requests at once.
public struct TestServer: Sendable {
    public let postgres: PostgresClient
    public let clock: ManualClock
    public let port: Int
    /// `https` when the server serves TLS (`TestTLS`), else `http`.
    public let scheme: String
    public let databaseURL: DatabaseURL
    let dependencies: ServerDependencies
    /// The families this server's requests and answers named (`FamiliesSeen`), noted only where
    /// the database is shared (the Citus pass): elsewhere a fingerprint reads the whole database.
    public let families = FamiliesSeen()
    var sharesItsDatabase: Bool { TestPostgres.isShared(databaseURL) }

    /// The server's pool as its stores use it, with the families' turns for writing.
    public var database: Database { dependencies.database }

    /// `scheme://127.0.0.1:port`.
    public var baseURL: String { "\(scheme)://127.0.0.1:\(port)" }

    /// The polls the server holds now, waiting for a wake.
    public var heldPolls: Int { dependencies.heldPolls }

    /// Waits until the server holds `count` polls (the poll under test has done its first read and
    /// waits).
    public func waitForHeldPolls(_ count: Int) async throws {
        try await OpenWaits.during("the server holding \(count) polls", limit: .seconds(20)) {
            let deadline = ContinuousClock.now + .seconds(20)
            while heldPolls != count {
                guard ContinuousClock.now < deadline else { throw TestFailure("the server holds \(heldPolls) polls, not \(count)") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// Sends the device's requests until this instance trusts its cached credential (its change
    /// listener is subscribed, and it has authenticated the device since).
    public func waitUntilKnown(_ device: TestDevice) async throws {
        try await OpenWaits.during("the server trusting the device's cached credential", limit: .seconds(20)) {
            let deadline = ContinuousClock.now + .seconds(20)
            while !dependencies.knownDevices.knows(familyID: device.familyID, deviceID: device.deviceID) {
                guard ContinuousClock.now < deadline else { throw TestFailure("the server does not know the device's credential") }
                let reply = try await send(.get, "/v1/devices/me", credential: device.credential)
                guard reply.status == .ok else { throw TestFailure("GET /v1/devices/me: \(reply.status)") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// One client for every test server: connections are pooled per port.
    public static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(90)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        // A server that is down answers at once, as with the SDK's own client.
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public struct Reply: Sendable {
        public var status: HTTPResponse.Status
        public var headers: HTTPFields
        public var body: ByteBuffer

        public func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try WireCoding.makeDecoder().decode(Value.self, from: Data(body.readableBytesView))
        }

        /// The §1.1 body's code, or "" when the body is not one.
        public var errorCode: String {
            (try? decode(ErrorResponse.self).error.code) ?? ""
        }

        public var error: ErrorResponse.Body? { try? decode(ErrorResponse.self).error }

        /// Seconds to wait before sending again, when this answer shed the request before it did
        /// anything (`TryAgainReason.familyBusy` or `.poolExhausted`).
        public var shedRetryAfter: Int? {
            guard status == .serviceUnavailable, let error = try? decode(ErrorResponse.self).familySyncError else { return nil }
            // A transaction the database cancelled as colliding with another (a deadlock, say)
            // changed nothing either: on Citus a family's deletion clears lookup tables over every
            // shard, and met another test's there as a distributed deadlock.
            if error.reason == FamilySyncError.collided.reason { return error.retryAfter ?? 1 }
            guard let reason = TryAgainReason(error), reason != .databaseUnavailable else { return nil }
            return reason.retryAfter
        }
    }

    /// `timeout` bounds the whole exchange: a test that expects an answer before a held poll's
    /// own timeout sets it shorter, so that a poll that was not released fails the test. A request
    /// shed before it did anything (a busy family or pool, §1.1), or rolled back as colliding with
    /// another, goes again after its `Retry-After`, as the SDK sends it, unless `retryingShed` is
    /// false.
    public func send(
        _ method: HTTPRequest.Method, _ uri: String, credential: String? = nil, json: String? = nil, headers extra: [(String, String)] = [],
        timeout: Duration = .seconds(90), retryingShed: Bool = true
    ) async throws -> Reply {
        var attempt = 1
        while true {
            let reply = try await sendOnce(method, uri, credential: credential, json: json, headers: extra, timeout: timeout)
            guard retryingShed, attempt < Self.shedAttempts, let wait = reply.shedRetryAfter else { return reply }
            attempt += 1
            try await Task.sleep(for: .seconds(wait) * Double.random(in: 1...1.5))
        }
    }

    /// As `FamilySyncClient` does for such answers, and some more: a test's burst is larger than an app's.
    static let shedAttempts = 6

    private func sendOnce(
        _ method: HTTPRequest.Method, _ uri: String, credential: String?, json: String?, headers extra: [(String, String)], timeout: Duration
    ) async throws -> Reply {
        try await OpenWaits.during("\(method) \(uri.split(separator: "?").first ?? "") to the test server", limit: timeout) {
            try await exchange(method, uri, credential: credential, json: json, headers: extra, timeout: timeout)
        }
    }

    private func exchange(
        _ method: HTTPRequest.Method, _ uri: String, credential: String?, json: String?, headers extra: [(String, String)], timeout: Duration
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + uri)
        request.method = .init(rawValue: method.rawValue)
        if let credential {
            request.headers.add(name: "Authorization", value: "Bearer \(credential)")
            if sharesItsDatabase { families.note(in: credential) }
        }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        request.headers.add(contentsOf: extra)
        let response = try await (scheme == "https" ? TestTLS.https : Self.http).execute(request, timeout: .init(timeout))
        let body = try await response.body.collect(upTo: 64 << 20)
        if sharesItsDatabase { families.note(in: body) }
        var headers = HTTPFields()
        for (name, value) in response.headers { if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) } }
        return Reply(status: HTTPResponse.Status(code: Int(response.status.code)), headers: headers, body: body)
    }

    public func send<Body: Encodable>(_ method: HTTPRequest.Method, _ uri: String, credential: String? = nil, body: Body) async throws -> Reply {
        let data = try WireCoding.makeEncoder().encode(body)
        return try await send(method, uri, credential: credential, json: String(decoding: data, as: UTF8.self))
    }

    /// One round of the stale detector (§10), as the server's job runs it: the devices turned
    /// stale, and the tracking alerts made.
    @discardableResult
    public func detectStale() async throws -> (stale: Int, alerts: [Alert]) {
        try await dependencies.staleDetector.run()
    }

    /// The hourly purge of sign-ins (§3.1), on demand.
    public func purgeSignIns(endedBefore cutoff: Date) async throws -> Int {
        try await dependencies.signIns.purgeExpired(before: cutoff)
    }

    /// The hourly purge of idempotency keys (§1.2.1), on demand.
    @discardableResult
    public func purgeIdempotencyKeys(before cutoff: Date) async throws -> Int {
        try await dependencies.idempotencyKeys.purge(before: cutoff)
    }

    /// Writes the reads this instance counted (`ReadTally`), as its 30-second job does.
    public func flushReadCounts() async {
        await dependencies.flushReadCounts()
    }

    /// One round of the hourly retention job (§15.1), on demand, at the server's maximum.
    @discardableResult
    public func expireRetention(maximumDays: Int = 400) async throws -> Int {
        try await dependencies.retention.expire(maximumDays: maximumDays)
    }

    /// Every row of the database; in the Citus pass's shared database, the rows of the families
    /// this server has seen (other tests write there meanwhile).
    public func fingerprint() async throws -> [String: String] {
        try await databaseFingerprint(postgres, families: sharesItsDatabase ? families.all : nil)
    }

    /// Makes the push sender look at the outbox now (after the test moved the clock).
    public func wakePushSender() {
        dependencies.pushWake.signal()
    }
}

public func withTestServer<Result: Sendable>(
    // The stale detector is run by the tests themselves (`detectStale`), on the manual clock; the
    // reads counted for the audit log are written when a test says so (`flushReadCounts`), so
    // that no flush on a timer lands between two fingerprints of the database.
    configuration: ServerConfiguration = .forTests,
    databaseURL: DatabaseURL? = nil,
    listenerBackoff: Duration = .milliseconds(100),
    push: PushSettings? = nil,
    clock: ManualClock = ManualClock(),
    familyWrites: FamilyWriteQueue.Limits = .init(),
    tracer: (any Tracer)? = nil,
    isolation: TestIsolation = .families,
    databaseSession: [(String, String)] = [],
    _ body: @Sendable (TestServer) async throws -> Result
) async throws -> Result {
    // The wait for a slot is not bounded: it lasts as long as the suite's earlier servers, and in
    // a full run a test's slot came after most of the suite (the SDK engine's tests,
    // near the end of the line, ran out their 5-minute time limits in it on a busy machine). The
    // bound starts with the test's own server.
    try await OpenWaits.during("a test server's slot (\(testServerSlots.limit) run at once)", limit: .seconds(3_600)) {
        try await testServerSlots.withPermit {
            try await withinBound(testServerLimit, "the test's body on its test server") {
                try await runTestServer(
                    configuration: configuration, databaseURL: databaseURL, listenerBackoff: listenerBackoff, push: push, clock: clock,
                    familyWrites: familyWrites, tracer: tracer, isolation: isolation, databaseSession: databaseSession, body
                )
            }
        }
    }
}

/// How long a test server's request waits for a connection: as long as the pool's connect may
/// take (30 s, `runTestServer`). A serving instance's three seconds (`Database.connectionWait`)
/// are for answering clients; at the suite's peak on a busy machine a new backend took longer than
/// that to start, and a lease that waited for it was answered "the database is unavailable",
/// which no test retries (CI, 2026-11-28: `aBadOrExpiredTokenFailsOnlyItsZone`'s family was
/// refused). A test of a pool at its limit waits it out (`aPoolAtItsLimitSaysSo`).
private let testServerLeaseWait = Duration.seconds(30)

/// How long a test may take once its server runs: many times what any test takes in a full run
/// on a busy machine (an access-matrix column, hundreds of requests, took over 240 s in a full run
/// beside a busy core), so that only a hang reaches it. Its waits have bounds of seconds.
public let testServerLimit = Duration.seconds(900)

extension ServerConfiguration {
    /// The test servers' settings: limits no test reaches unless it sets its own, and the operator
    /// token `TestServer.operatorToken` for the fleet's endpoints.
    public static var forTests: ServerConfiguration {
        var configuration = ServerConfiguration(
            port: 0, unauthenticatedRateLimit: RateLimit(burst: 100_000, perMinute: 100_000), healthCheckInterval: .seconds(86_400),
            readTallyInterval: .seconds(86_400)
        )
        configuration.operatorToken = OperatorToken(TestServer.operatorToken)
        // The per-device limit has its own tests; the others send as fast as they like.
        configuration.deviceRateLimit = RateLimit(burst: 1_000_000, perMinute: 1_000_000)
        return configuration
    }
}

extension ServerConfiguration {
    /// No stale-device round on a timer: on the Citus pass's shared database it would reach
    /// other tests' families, on this server's clock (their manual clocks start days back). A test
    /// runs that job itself (`detectStale`), on a database of its own.
    public mutating func keepingJobsToTheTest() {
        healthCheckInterval = .seconds(86_400)
    }
}

extension TestServer {
    /// The operator token of the test servers (`ServerConfiguration.forTests`).
    public static let operatorToken = "fso1.operator-token-of-the-test-servers-0123456789"
}

/// Suites run their cases in parallel; a server holds up to eight connections to the shared
/// cluster (its pool's four, its listeners, and the test's own client's two, which few tests
/// use), so only so many run at once.
private let testServerSlots = AsyncSemaphore(limit: 32)

private func runTestServer<Result: Sendable>(
    configuration: ServerConfiguration, databaseURL: DatabaseURL?, listenerBackoff: Duration, push: PushSettings?, clock: ManualClock,
    familyWrites: FamilyWriteQueue.Limits, tracer: (any Tracer)?, isolation: TestIsolation, databaseSession: [(String, String)],
    _ body: @Sendable (TestServer) async throws -> Result
) async throws -> Result {
    let url = if let databaseURL { databaseURL } else { try await TestPostgres.shared.makeDatabase(isolation: isolation) }
    let outcome: Swift.Result<Result, any Error>
    do {
        outcome = .success(try await runTestServer(
            on: url, configuration: configuration, listenerBackoff: listenerBackoff, push: push, clock: clock, familyWrites: familyWrites,
            tracer: tracer, databaseSession: databaseSession, body
        ))
    } catch {
        outcome = .failure(error)
    }
    // A database the server made for itself goes with it; one the test passed in is the test's.
    if databaseURL == nil { await TestPostgres.shared.dropDatabase(url) }
    return try outcome.get()
}

private func runTestServer<Result: Sendable>(
    on url: DatabaseURL, configuration: ServerConfiguration, listenerBackoff: Duration, push: PushSettings?, clock: ManualClock,
    familyWrites: FamilyWriteQueue.Limits, tracer: (any Tracer)?, databaseSession: [(String, String)],
    _ body: @Sendable (TestServer) async throws -> Result
) async throws -> Result {
    var configuration = configuration
    if TestPostgres.isShared(url) { configuration.keepingJobsToTheTest() }
    var poolConfiguration = try url.connectionConfiguration()
    // The suite runs dozens of servers on two cores against one cluster: at its peak a backend
    // has taken longer than PostgresNIO's 10 s to start, and the pool then failed whole requests.
    poolConfiguration.options.connectTimeout = .seconds(30)
    // Settings of the pool's sessions (not the listener's), sent in each connection's startup.
    poolConfiguration.options.additionalStartupParameters += databaseSession
    let pool = LoopBoundPool(configuration: poolConfiguration, limit: 4, logger: testLogger)
    let dependencies = ServerDependencies(
        pool: pool, listener: try url.connectionConfiguration(), metricsRegistry: testMetricsRegistry, clock: clock, logger: testLogger,
        listenerBackoff: listenerBackoff, listenerMaximumBackoff: max(listenerBackoff, .seconds(2)), push: push, familyWrites: familyWrites, tracer: tracer,
        leaseWait: testServerLeaseWait
    )
    // The test's own client, for what it sets up and checks in the database, with the pool's settings.
    var postgresConfiguration = url.clientConfiguration()
    postgresConfiguration.options.maximumConnections = 2
    postgresConfiguration.options.connectTimeout = .seconds(30)
    postgresConfiguration.options.additionalStartupParameters += databaseSession
    let postgres = PostgresClient(configuration: postgresConfiguration, backgroundLogger: testLogger)
    // The port once the server listens, or why it never will. Not HummingbirdTesting's live
    // framework: it waits for the port without end when the application fails before listening
    // (its start's database work failed, say), and that hung the suite with nothing said.
    let listening = SingleOutcome<Int>()
    // The web dashboard, as `familysync serve` mounts it.
    let app = buildApplication(configuration: configuration, dependencies: dependencies, modules: [WebDashboard()]) { channel in
        _ = listening.resolve(.success(channel.localAddress?.port ?? 0))
    }
    let services = ServiceGroup(configuration: .init(services: [app], logger: testLogger))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await postgres.run() }
        defer { group.cancelAll() }
        // A hung run names this server's pool, and whether the hang was in its start, the test's
        // steps or the server's shutdown after them.
        return try await OpenWaits.describing("a test server's pool (\(Test.current.map { "\($0.id)" } ?? "outside a test"))", by: { pool.description }) {
            try await withThrowingTaskGroup(of: Void.self) { serving in
                serving.addTask {
                    do {
                        try await services.run()
                        _ = listening.resolve(.failure(TestFailure("the test server stopped before it listened")))
                    } catch {
                        _ = listening.resolve(.failure(TestFailure("the test server did not start: \(String(reflecting: error))")))
                        throw error
                    }
                }
                let port = try await OpenWaits.during("the test server's start", limit: .seconds(120)) { try await listening.value }
                let outcome: Swift.Result<Result, any Error>
                do {
                    outcome = .success(try await OpenWaits.during("the test's steps on its server (port \(port))", limit: testServerLimit) {
                        try await body(TestServer(postgres: postgres, clock: clock, port: port, scheme: configuration.scheme, databaseURL: url, dependencies: dependencies))
                    })
                } catch {
                    outcome = .failure(error)
                }
                // As the live test framework did: the server stops gracefully, and is waited for.
                await services.triggerGracefulShutdown()
                try await OpenWaits.during("the test server's shutdown (port \(port))", limit: .seconds(60)) { try await serving.waitForAll() }
                return try outcome.get()
            }
        }
    }
}

/// swift-metrics takes one backend per process; every test application reports to this registry.
public let testMetricsRegistry: PrometheusCollectorRegistry = {
    let registry = PrometheusCollectorRegistry()
    MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    return registry
}()

/// The families named by a test server's traffic: the family in each credential it sent, and in
/// each credential or pairing token an answer carried. In the Citus pass, where every test shares
/// one database, a fingerprint reads these families' rows.
public final class FamiliesSeen: Sendable {
    private let ids = Mutex<Set<UUID>>([])

    public var all: Set<UUID> { ids.withLock { $0 } }

    /// Notes a family outside the server's traffic (a family a test made through a store).
    public func note(_ family: UUID) {
        _ = ids.withLock { $0.insert(family) }
    }

    /// Every `fs1.<family>.` and `fp1.<family>.` in `text`.
    func note(in text: String) {
        note(in: ByteBuffer(string: text))
    }

    func note(in buffer: ByteBuffer) {
        let bytes = buffer.readableBytesView
        var found: [UUID] = []
        var index = bytes.startIndex
        // "fs1." or "fp1.", then 36 characters of a UUID and a dot.
        while let f = bytes[index...].firstIndex(of: UInt8(ascii: "f")) {
            index = f + 1
            let end = f + 4 + 36
            guard end < bytes.endIndex, bytes[f + 2] == UInt8(ascii: "1"), bytes[f + 3] == UInt8(ascii: "."), bytes[end] == UInt8(ascii: "."),
                bytes[f + 1] == UInt8(ascii: "s") || bytes[f + 1] == UInt8(ascii: "p"),
                let family = UUID(uuidString: String(decoding: bytes[(f + 4)..<end], as: UTF8.self))
            else { continue }
            found.append(family)
        }
        guard !found.isEmpty else { return }
        ids.withLock { $0.formUnion(found) }
    }
}
