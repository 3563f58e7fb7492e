import FamilySyncCore
import FamilySyncPostgres
import Hummingbird
import NIOCore
import Logging
import PostgresNIO
import Prometheus

public typealias FamilySyncApplication = Application<RouterResponder<FamilySyncRequestContext>>

/// Builds the HTTP application over a database client. The client runs as one of the application's
/// services, so it starts with the application and closes after the server has stopped; the
/// migrations are applied once it runs and before the server accepts a request.
/// `listener` is the database for the one LISTEN connection that wakes long polls (§6): the same
/// database as the client's, on a connection of its own.
public func buildApplication(
    configuration: ServerConfiguration,
    postgres: PostgresClient,
    listener: PostgresConnection.Configuration,
    metricsRegistry: PrometheusCollectorRegistry,
    clock: any WallClock = SystemWallClock(),
    logger: Logger,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) -> FamilySyncApplication {
    let longPolling = LongPolling(registry: metricsRegistry)
    return buildApplication(
        configuration: configuration, postgres: postgres, listener: PostgresChangeListener(
            configuration: listener, sink: longPolling.sink, logger: logger
        ), longPolling: longPolling, metricsRegistry: metricsRegistry, clock: clock, logger: logger, onServerRunning: onServerRunning
    )
}

/// The application with its long-poll machinery and listener given: tests reach into the former
/// and tune the latter.
func buildApplication(
    configuration: ServerConfiguration,
    postgres: PostgresClient,
    listener: PostgresChangeListener,
    longPolling: LongPolling,
    metricsRegistry: PrometheusCollectorRegistry,
    clock: any WallClock,
    logger: Logger,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void
) -> FamilySyncApplication {
    let keyring = ChangeTokenKeyring()
    let router = buildRoutes(
        configuration: configuration, postgres: postgres, metricsRegistry: metricsRegistry, clock: clock, keyring: keyring,
        longPolling: longPolling, logger: logger
    ).router
    var app = makeApplication(router: router, configuration: configuration, postgres: postgres, keyring: keyring, logger: logger, onServerRunning: onServerRunning)
    app.addServices(listener)
    let records = PostgresRecordStore(client: postgres, clock: clock, logger: logger)
    let usage = PostgresUsageStore(client: postgres, clock: clock, logger: logger)
    app.addServices(
        PeriodicJobService(name: "purged tombstones", interval: .seconds(3600), logger: logger) {
            try await records.purgeTombstones(olderThan: clock.now().addingTimeInterval(-configuration.tombstoneHorizon))
        },
        PeriodicJobService(name: "expired usage records", interval: .seconds(3600), logger: logger) {
            try await usage.expireUsage(before: clock.now().addingTimeInterval(-configuration.usageRetention))
        }
    )
    return app
}

/// The application around a router; tests use it to add routes of their own.
func makeApplication(
    router: Router<FamilySyncRequestContext>,
    configuration: ServerConfiguration,
    postgres: PostgresClient,
    keyring: ChangeTokenKeyring? = nil,
    logger: Logger,
    migrateOnStart: Bool = true,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) -> FamilySyncApplication {
    var app = Application(
        router: router,
        server: .http1(configuration: .init(idleTimeout: .nanoseconds(Int64(configuration.idleTimeout / .nanoseconds(1))))),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "FamilySync"),
        services: [postgres],
        onServerRunning: onServerRunning,
        logger: logger
    )
    if migrateOnStart {
        app.beforeServerStarts {
            let applied = try await Migrator(logger: logger).migrate(client: postgres)
            if !applied.isEmpty { logger.info("migrations applied", metadata: ["versions": "\(applied)"]) }
            if let keyring {
                keyring.set(try await PostgresServerSecrets.loadOrCreate("change-token", client: postgres, logger: logger))
            }
        }
    }
    return app
}

public func buildRouter(
    configuration: ServerConfiguration,
    postgres: PostgresClient,
    metricsRegistry: PrometheusCollectorRegistry,
    clock: any WallClock = SystemWallClock(),
    logger: Logger
) -> Router<FamilySyncRequestContext> {
    buildRoutes(configuration: configuration, postgres: postgres, metricsRegistry: metricsRegistry, clock: clock, logger: logger).router
}

/// The router, and what it serves: tests compare the latter with the OpenAPI document.
func buildRoutes(
    configuration: ServerConfiguration,
    postgres: PostgresClient,
    metricsRegistry: PrometheusCollectorRegistry,
    clock: any WallClock = SystemWallClock(),
    keyring: ChangeTokenKeyring = ChangeTokenKeyring(),
    longPolling: LongPolling? = nil,
    logger: Logger
) -> MethodAwareRouter<FamilySyncRequestContext> {
    let router = Router(context: FamilySyncRequestContext.self)
    let routes = MethodAwareRouter(router, table: RouteTable())
    // Outermost first: the request id is on every response, metrics see the final status,
    // and the error middleware turns every failure below it into §1.1's JSON.
    routes.add(middleware: RequestIDMiddleware())
    routes.add(middleware: MetricsMiddleware())
    routes.add(middleware: ErrorMiddleware(routes: routes.table))
    routes.add(middleware: BodyLimitMiddleware(maxBodyBytes: configuration.limits.maxBodyBytes))

    let migrator = Migrator(logger: logger)
    HealthController(readiness: DatabaseReadiness(client: postgres, migrator: migrator)).addRoutes(to: routes)
    MetricsController(registry: metricsRegistry).addRoutes(to: routes)

    let devices = PostgresDeviceStore(client: postgres, clock: clock, logger: logger)
    let families = FamilyController(families: PostgresFamilyStore(client: postgres, clock: clock, logger: logger))
    let pairings = PairingController(
        pairings: PostgresPairingStore(client: postgres, clock: clock, logger: logger), clock: clock, publicURL: configuration.publicURL
    )
    let records = PostgresRecordStore(client: postgres, clock: clock, logger: logger)
    let v1 = routes.group("v1")
    // Without a credential, and so limited per client address.
    let open = v1.group().add(middleware: RateLimitMiddleware(limiter: RateLimiter(limit: configuration.unauthenticatedRateLimit, clock: clock)))
    families.addOpenRoutes(to: open)
    pairings.addOpenRoutes(to: open)
    let authenticated = v1.group().add(middleware: AuthenticationMiddleware(devices: devices))
    families.addAuthenticatedRoutes(to: authenticated)
    DeviceController(devices: devices).addRoutes(to: authenticated)
    pairings.addAuthenticatedRoutes(to: authenticated)
    ZoneController(records: records, devices: devices, keyring: keyring).addRoutes(to: authenticated)
    RecordController(records: records, keyring: keyring).addRoutes(to: authenticated)
    CommandController(commands: PostgresCommandStore(client: postgres, clock: clock, logger: logger)).addRoutes(to: authenticated)
    let usage = UsageController(
        usage: PostgresUsageStore(client: postgres, clock: clock, logger: logger), keyring: keyring, clock: clock, retention: configuration.usageRetention
    )
    usage.addRoutes(to: authenticated)
    usage.addReadRoutes(to: authenticated)
    let polling = longPolling ?? LongPolling(registry: metricsRegistry)
    PollController(
        hub: polling.hub, polls: PostgresPollStore(client: postgres, logger: logger), keyring: keyring, metrics: polling.metrics, logger: logger
    ).addRoutes(to: authenticated)
    return routes
}
