@testable import FamilySyncApp
import FamilySyncCore
import FamilySyncPostgres
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Hummingbird
import Logging
import Metrics
import PostgresNIO
import Prometheus

/// The application as `serve` builds it, over a fresh migrated test database (or the given URL),
/// with routes a test may add to reach the shared machinery (decoding, error mapping).
func withTestApplication<Result: Sendable>(
    limits: Limits = Limits(),
    databaseURL: DatabaseURL? = nil,
    extraRoutes: (Router<FamilySyncRequestContext>, Database) -> Void = { _, _ in },
    _ body: (FamilySyncApplication) async throws -> Result
) async throws -> Result {
    var url = databaseURL
    if url == nil { url = try await TestPostgres.shared.makeDatabase() }
    var configuration = try url!.connectionConfiguration()
    // A live database gets the other test servers' 30 s: a backend took longer than 1 s to start
    // in a full run on a busy machine, and the request failed as "database unavailable". A
    // database nobody reaches (the health tests') fails fast.
    configuration.options.connectTimeout = databaseURL == nil ? .seconds(30) : .seconds(1)
    let pool = LoopBoundPool(configuration: configuration, limit: 4, logger: testLogger)
    // A database that is down cannot be migrated; such a test starts the server without.
    let dependencies = ServerDependencies(
        pool: pool, listener: try url!.connectionConfiguration(), metricsRegistry: testMetricsRegistry, logger: testLogger, migrateOnStart: databaseURL == nil
    )
    var serverConfiguration = ServerConfiguration(host: "127.0.0.1", port: 0, limits: limits)
    if TestPostgres.isShared(url!) { serverConfiguration.keepingJobsToTheTest() }
    let app = buildApplication(configuration: serverConfiguration, dependencies: dependencies, routes: { router in
        extraRoutes(router, dependencies.database)
    })
    return try await body(app)
}

/// What the router serves, by path ("{id}" for parameters, as OpenAPI writes them): the methods of
/// each. Built as `serve` builds it, over a database nobody reaches (building connects to nothing).
func servedRoutes() -> [String: Set<String>] {
    let nowhere = PostgresConnection.Configuration(unixSocketPath: "/nonexistent", username: "x", password: nil, database: nil)
    let dependencies = ServerDependencies(
        pool: LoopBoundPool(configuration: nowhere, limit: 1, logger: testLogger), listener: nowhere,
        metricsRegistry: .init(), logger: testLogger
    )
    var servedByPath: [String: Set<String>] = [:]
    for route in buildRouter(configuration: .init(), dependencies: dependencies).table.routes {
        servedByPath[route.path] = Set(route.methods.map(\.rawValue))
    }
    return servedByPath
}
