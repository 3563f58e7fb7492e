import FamilySyncCore
import FamilySyncPostgres
import FamilySyncServer
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

public typealias FamilySyncApplication = Application<FamilySyncResponder>

/// The application: the router, the database pool and the change listener as its services
/// (the pool starts with it and closes after the server has stopped), the periodic jobs, and
/// the migrations and the token key loaded before the server accepts a request. `modules` are
/// served beside the API (`familysync serve` mounts the web dashboard, `FamilySyncWeb`); `routes`
/// adds to the router (tests reach the shared machinery through it).
package func buildApplication(
    configuration: FamilySyncServer.ServerConfiguration,
    dependencies: ServerDependencies,
    modules: [any RouteModule] = [],
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in },
    routes: (Router<FamilySyncRequestContext>) -> Void = { _ in }
) -> FamilySyncApplication {
    let router = buildRouter(configuration: configuration, dependencies: dependencies, modules: modules).router
    routes(router)
    let logger = dependencies.logger
    let bodiesInFlight = BodiesInFlight(limit: configuration.bodiesInFlightPerAddress)
    // A request's own handlers: in an HTTP/1.1 connection's pipeline, or an HTTP/2 stream's.
    let requestHandlers: @Sendable () -> [any RemovableChannelHandler] = {
        [
            ConnectionEndWatcher(), HeadWithItsBody(), BodyArrivalPace(pace: configuration.bodyPace, inFlight: bodiesInFlight, proxies: configuration.trustedProxies),
            ReadsPausedAfterRefusal(pause: configuration.refusalReadPause, proxies: configuration.trustedProxies),
        ]
    }
    // The connection's: in an HTTP/1.1 connection's pipeline, or under a TLS connection's TLS.
    let connectionHandlers: @Sendable () -> [any RemovableChannelHandler] = { [ReceiveBufferSizing(), ConnectionReadPause()] }
    let idleTimeout = TimeAmount.nanoseconds(Int64(configuration.idleTimeout / .nanoseconds(1)))
    let server: HTTPServerBuilder
    if let tls = configuration.tls {
        server = .secure(
            tls: tls.serverConfiguration(), http1: HTTP1Channel.Configuration(additionalChannelHandlers: requestHandlers(), idleTimeout: idleTimeout),
            idleTimeout: idleTimeout, connectionHandlers: connectionHandlers, streamHandlers: requestHandlers, group: MultiThreadedEventLoopGroup.singleton
        )
    } else {
        server = .http1OnItsLoop(
            configuration: HTTP1Channel.Configuration(additionalChannelHandlers: connectionHandlers() + requestHandlers(), idleTimeout: idleTimeout),
            group: MultiThreadedEventLoopGroup.singleton
        )
    }
    var app = Application(
        responder: FamilySyncResponder(router: router.buildResponder()),
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "FamilySync"),
        services: [dependencies.pool, dependencies.listener],
        onServerRunning: onServerRunning,
        logger: logger
    )
    if dependencies.migrateOnStart {
        app.beforeServerStarts {
            let applied = try await StartupRetry.run("migrations", logger: logger) {
                try await PostgresConnection.withConnection(dependencies.migrationDatabase, logger: logger) { connection in
                    try await dependencies.migrator.migrate(connection: connection)
                }
            }
            if !applied.isEmpty { logger.info("migrations applied", metadata: ["versions": "\(applied)"]) }
            dependencies.keyring.set(try await StartupRetry.run("secrets", logger: logger) {
                try await PostgresServerSecrets.loadOrCreate("change-token", database: dependencies.database, logger: logger)
            })
            dependencies.migrated.open()
            // Parent PINs whose record still carried its verifier (migration 0018): rewritten
            // before the first request, so that no device syncs a verifier from now on.
            // Best effort: a round that fails is logged, and the hourly job goes on.
            do {
                let rewritten = try await dependencies.parentPINs.rewriteRecordsStillCarryingVerifiers()
                if rewritten > 0 { logger.info("parent PIN records rewritten without their verifiers", metadata: ["count": "\(rewritten)"]) }
            } catch {
                logger.warning("parent PIN records not rewritten at start; the hourly job tries again", metadata: ["error": "\(DatabaseErrorTranslation.describeForOperator(error))"])
            }
            // `familysync_database_up` and the schema's figures from the start, not 15 s later.
            _ = try? await dependencies.databaseMetrics.check(dependencies.database, migrator: dependencies.migrator, logger: logger)
        }
    } else {
        dependencies.migrated.open()
    }
    let clock = dependencies.clock
    if let push = dependencies.push {
        app.addServices(dependencies.pushListener, PushSender(
            claims: dependencies.pushClaims, migrated: dependencies.migrated, makeTransport: { try await makeTransport(push, clock: clock, logger: logger) }, wake: dependencies.pushWake,
            metrics: dependencies.pushMetrics, clock: clock, settings: push, logger: logger
        ))
    }
    if let tls = configuration.tls { app.addServices(tls) }
    app.addServices(
        ReadTallyService(tally: dependencies.readTally, audit: dependencies.audit, interval: configuration.readTallyInterval, logger: logger),
        PeriodicJobService(name: "purged tombstones", interval: .seconds(3600), logger: logger) {
            try await dependencies.tombstones.purge(olderThan: clock.now().addingTimeInterval(-configuration.tombstoneHorizon))
        },
        PeriodicJobService(name: "expired sign-ins", interval: .seconds(3600), logger: logger) {
            // A day after they ended: long enough to tell a late claim that it expired.
            try await dependencies.signIns.purgeExpired(before: clock.now().addingTimeInterval(-86_400))
        },
        // A server that does not migrate at its start finds the records another rewrote or left.
        PeriodicJobService(name: "parent PIN records rewritten without their verifiers", interval: .seconds(3600), logger: logger) {
            try await dependencies.parentPINs.rewriteRecordsStillCarryingVerifiers()
        },
        PeriodicJobService(name: "dashboard sessions past their lifetimes", interval: .seconds(3600), logger: logger) {
            try await dependencies.dashboardSessions.purgeEnded()
        },
        PeriodicJobService(name: "expired idempotency keys", interval: .seconds(3600), logger: logger) {
            try await dependencies.idempotencyKeys.purge(before: clock.now().addingTimeInterval(-IdempotencyKey.lifetime))
        },
        PeriodicJobService(name: "expired records and rows past retention", interval: .seconds(3600), logger: logger) {
            try await dependencies.retention.expire(maximumDays: configuration.retentionDays)
        },
        PeriodicJobService(name: "database check", interval: configuration.healthCheckInterval, logger: logger) {
            try await dependencies.databaseMetrics.check(dependencies.database, migrator: dependencies.migrator, logger: logger)
        },
        PeriodicJobService(name: "devices turned stale", interval: configuration.healthCheckInterval, logger: logger) {
            let (stale, alerts) = try await dependencies.staleDetector.run()
            dependencies.healthMetrics.trackingAlerts.increment(by: Int64(alerts.count))
            dependencies.healthMetrics.set(try await dependencies.fleetGauge.countByStatus())
            return stale
        }
    )
    return app
}

/// APNs with the operator's key, or the webhook.
private func makeTransport(_ push: PushSettings, clock: any WallClock, logger: Logger) async throws -> any PushTransport {
    switch push.destination {
    case .apns(let keyPEM, let keyID, let teamID, let environment):
        return try await APNsTransport(
            keyPEM: keyPEM, keyID: keyID, teamID: teamID, environment: environment, baseURL: push.apnsBaseURL, trustRoots: push.trustRoots,
            clock: clock, logger: logger
        )
    case .webhook(let url, let secret):
        return WebhookTransport(url: url, secret: secret, clock: clock, logger: logger)
    }
}

/// The router, and the table of what it serves (tests compare it with the OpenAPI document and
/// the access matrix).
func buildRouter(
    configuration: FamilySyncServer.ServerConfiguration, dependencies: ServerDependencies, modules: [any RouteModule] = []
) -> MethodAwareRouter<FamilySyncRequestContext> {
    let router = Router(context: FamilySyncRequestContext.self)
    let routes = MethodAwareRouter(router, table: RouteTable())
    // Outermost first: the request id is on every response, metrics see the final status,
    // and the error middleware turns every failure below it into §1.1's JSON.
    routes.add(middleware: PreferredLoopMiddleware())
    routes.add(middleware: RequestIDMiddleware())
    if configuration.tls != nil { routes.add(middleware: StrictTransportSecurityMiddleware()) }
    if let pinning = configuration.keyPinning { routes.add(middleware: KeyPinsAnnouncedMiddleware(pinning)) }
    // A span per request when tracing is on, outside the error middleware to see final statuses.
    if let tracer = dependencies.tracer {
        routes.add(middleware: RequestSpanMiddleware(tracer: tracer, recordsPaths: configuration.tracesRecordPaths))
    }
    // An access line per request at debug (method and path with its request id; never headers
    // or bodies, which carry credentials and PINs).
    routes.add(middleware: LogRequestsMiddleware(.debug))
    routes.add(middleware: RequestMetricsMiddleware())
    routes.add(middleware: ResponseCompressionMiddleware())
    routes.add(middleware: ErrorMiddleware(routes: routes.table, shed: dependencies.shedMetrics))
    // The modules' middleware (the dashboard's: under /app, every answer, unknown paths, 405s and
    // 413s too, is a page with its headers), inside the error middleware, outside the body limit.
    for module in modules { module.addMiddleware(to: routes) }
    routes.add(middleware: BodyLimitMiddleware(maxBodyBytes: configuration.limits.maxBodyBytes))
    routes.add(middleware: ForwardedClientMiddleware(proxies: configuration.trustedProxies))

    let clock = dependencies.clock, keyring = dependencies.keyring
    ProbeController(readiness: DatabaseReadiness(database: dependencies.database, migrator: dependencies.migrator)).addRoutes(to: routes)
    MetricsController(registry: dependencies.metricsRegistry, database: dependencies.database, databaseMetrics: dependencies.databaseMetrics).addRoutes(to: routes)

    let families = FamilyController(
        families: dependencies.families,
        apple: AppleIdentityVerifier(jwksURL: configuration.appleJWKSURL, clientIDs: configuration.appleClientIDs, clock: clock, logger: dependencies.logger),
        recoveryFailures: RateLimiter(limit: configuration.recoveryFailureLimit, clock: clock)
    )
    let pairings = PairingController(pairings: dependencies.pairings, clock: clock, publicURL: PublicURL(configuration), keyPinning: configuration.keyPinning)
    let signIns = SignInController(
        signIns: dependencies.signIns, clock: clock, publicURL: PublicURL(configuration),
        codeFailures: RateLimiter(limit: configuration.signInCodeFailureLimit, clock: clock)
    )
    let v1 = routes.group("v1")
    // Without a credential, and so limited per client address.
    let open = v1.group().add(middleware: RateLimitMiddleware(limiter: RateLimiter(limit: configuration.unauthenticatedRateLimit, clock: clock)))
    families.addOpenRoutes(to: open)
    pairings.addOpenRoutes(to: open)
    signIns.addOpenRoutes(to: open)
    // The operator's, with its own token (not a family's); limited per address as the open ones.
    FleetController(reports: dependencies.trackingReports, token: configuration.operatorToken, clock: clock).addRoutes(to: open)
    let authenticated = v1.authenticated(dependencies, limit: configuration.deviceRateLimit)
    families.addAuthenticatedRoutes(to: authenticated)
    DeviceController(devices: dependencies.devices).addRoutes(to: authenticated)
    MemberController(members: dependencies.members).addRoutes(to: authenticated)
    AlertController(alerts: dependencies.alerts).addRoutes(to: authenticated)
    let health = DeviceHealthController(intake: dependencies.healthIntake, reads: dependencies.healthReads, metrics: dependencies.healthMetrics, clock: clock)
    health.addRoutes(to: authenticated)
    ShieldController(shields: dependencies.shields, clock: clock).addRoutes(to: authenticated)
    ParentPINController(pins: dependencies.parentPINs).addRoutes(to: authenticated)
    PushController(pushes: dependencies.pushes).addRoutes(to: authenticated)
    AuditController(audit: dependencies.audit).addRoutes(to: authenticated)
    ExportController(export: dependencies.export, slots: ExportSlots(), clock: clock).addRoutes(to: authenticated)
    RetentionController(retention: dependencies.retention, maximumDays: configuration.retentionDays).addRoutes(to: authenticated)
    pairings.addAuthenticatedRoutes(to: authenticated)
    signIns.addAuthenticatedRoutes(to: authenticated)
    ZoneController(zones: dependencies.zones, reads: dependencies.recordReads, devices: dependencies.devices, keyring: keyring).addRoutes(to: authenticated)
    RecordController(writes: dependencies.recordWrites, reads: dependencies.recordReads, keyring: keyring).addRoutes(to: authenticated)
    CommandController(writes: dependencies.commandWrites, reads: dependencies.commandReads).addRoutes(to: authenticated)
    let usage = UsageController(intake: dependencies.usageIntake, reads: dependencies.usageReads, keyring: keyring, clock: clock, retention: configuration.usageRetention)
    usage.addRoutes(to: authenticated)
    usage.addReadRoutes(to: authenticated)
    PollController(
        hub: dependencies.longPolling.hub, polls: dependencies.polls, keyring: keyring, metrics: dependencies.longPolling.metrics, clock: clock,
        marksPushHolds: dependencies.push != nil, heartbeats: health, logger: dependencies.logger
    ).addRoutes(to: authenticated)

    // The modules' routes (the web dashboard, reading and acting through the routes above).
    if !modules.isEmpty {
        let api = APIResponder()
        for module in modules { module.addRoutes(to: routes, api: api, configuration: configuration, dependencies: dependencies) }
        api.set(routes.router.buildResponder())
    }
    return routes
}

extension RouterMethods where Context == FamilySyncRequestContext {
    /// A group behind a device's credential, with what every such request passes first, outermost
    /// first: the credential and the device's budget of requests, the family's line of writes, the
    /// read tally, idempotency keys. The API's, and the floor harness's rungs (Benchmarks/README.md,
    /// "The ladder").
    package func authenticated(_ dependencies: ServerDependencies, limit: RateLimit) -> RouterGroup<Context> {
        group().add(middleware: AuthenticationMiddleware(devices: dependencies.devices, limiter: DeviceRateLimiter(limit: limit, clock: dependencies.clock)))
            .add(middleware: BusyFamilyMiddleware(families: dependencies.database.families))
            .add(middleware: ReadCountMiddleware(tally: dependencies.readTally, clock: dependencies.clock))
            .add(middleware: IdempotencyMiddleware(keys: dependencies.idempotencyKeys, keyring: dependencies.keyring, clock: dependencies.clock))
    }
}
