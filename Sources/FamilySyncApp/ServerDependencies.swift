import Crypto
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncServer
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Prometheus
import Tracing

/// What the application is built from, each part made once: the database pool, the stores over
/// it, the long-poll machinery and its listener, the token keyring, metrics, clock and logger.
/// `familysync serve`, the benchmarks and the tests build it the same way; tests override the
/// parts they must control (a manual clock, a slow listener, no migration for a database that is
/// down).
///
/// A class: its fifty parts are 4.5 KB by value, and every closure that captured the struct copied
/// them all. Swift 6.3.1 crashed copying such a capture into a task group's child in a debug build
/// (`DeviceHealthTests`, when one store grew by a field), so nothing copies it any more.
public final class ServerDependencies: Sendable {
    /// The serving pool, a service of the application.
    public let pool: LoopBoundPool
    /// The pool as every store uses it, with the families' turns for writing.
    public let database: Database
    public let metricsRegistry: PrometheusCollectorRegistry
    public let clock: any WallClock
    public let logger: Logger
    /// The one LISTEN connection that wakes long polls (§6), a service of the application.
    public let listener: PostgresChangeListener
    /// Whether the migrations are applied before the server accepts a request.
    public let migrateOnStart: Bool
    let longPolling: LongPolling
    /// The devices this instance authenticated lately (`KnownDevices`), dropped as notices say.
    public let knownDevices = KnownDevices()
    let keyring = ChangeTokenKeyring()

    /// A key for `purpose`, derived from the server's secret (the one every instance loads at its
    /// start): the same on every instance, and nothing else's. The dashboard binds its form tokens
    /// to a session with one.
    package func derivedKey(_ purpose: String) throws(FamilySyncError) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: try keyring.current(), info: Data(purpose.utf8), outputByteCount: 32)
    }
    let migrator: Migrator
    /// The database the migrations run on: the listener's, reached directly. Their session
    /// advisory lock and their transactions need one session, which a transaction pooler would
    /// spread over several server connections (docs/operations.md, "Prepared statements and poolers").
    let migrationDatabase: PostgresConnection.Configuration
    let families: PostgresFamilyStore
    let devices: PostgresDeviceStore
    let pairings: PostgresPairingStore
    /// Public for harnesses and tests that run the hourly purge on demand.
    public let signIns: PostgresSignInStore
    /// The web dashboard's signed-in browsers (`DashboardSession`).
    public let dashboardSessions: PostgresDashboardSessionStore
    let zones: PostgresZoneStore
    let recordWrites: PostgresRecordWrites
    let recordReads: PostgresRecordReads
    let tombstones: PostgresTombstonePurge
    let commandWrites: PostgresCommandWrites
    let commandReads: PostgresCommandReads
    let usageIntake: PostgresUsageIntake
    let usageReads: PostgresUsageReads
    /// Public for harnesses and tests that run the hourly retention job on demand.
    public let retention: PostgresRetention
    let audit: PostgresAuditStore
    /// Parents' reads counted in this instance, flushed every 30 s (`ReadTallyService`).
    let readTally = ReadTally()
    let export: PostgresExport
    let polls: PostgresPollStore
    let members: PostgresMemberStore
    let alerts: PostgresAlertStore
    /// Device health (§10): reports, a device's day, the fleet gauge, and the stale detector,
    /// public for harnesses that drive it on their own clock.
    let healthIntake: PostgresHealthIntake
    let healthReads: PostgresHealthReads
    let fleetGauge: PostgresFleetGauge
    let trackingReports: PostgresTrackingReport
    public let staleDetector: PostgresStaleDetector
    let healthMetrics: HealthMetrics
    let shields: PostgresShieldStore
    let parentPINs: PostgresParentPINStore
    let pushes: PostgresPushStore
    /// The devices' idempotency keys and their answers (§1.2.1).
    public let idempotencyKeys: PostgresIdempotencyKeys
    /// Push (§12), when configured: its settings, the outbox's claims, what wakes the sender, and
    /// the LISTEN connection on the outbox channel.
    public let push: PushSettings?
    let pushClaims: PostgresPushClaims
    let pushMetrics: PushMetrics
    /// The pool's use and the database's state on `/metrics`, and the 503s shed by reason.
    let databaseMetrics: DatabaseMetrics
    let shedMetrics: ShedMetrics
    /// Traces (docs/operations.md, "Traces"), when on: `serve` makes it from OpenTelemetry's
    /// backend, a test from its own.
    public let tracer: (any Tracer)?
    /// Tests signal it after moving a manual clock, so that the sender looks at once.
    public let pushWake = PushWake()
    let pushListener: PostgresChangeListener
    /// Opened once the migrations are applied.
    let migrated = StartupGate()

    /// The polls this instance holds, waiting for a wake: `familysync_polls_active` also counts
    /// those still at their first read, which a test that stops the database next must not.
    public var heldPolls: Int { longPolling.hub.waiting }

    /// `listener` is the database of the LISTEN connection: the same database as `pool`'s, on a
    /// connection of its own.
    public init(
        pool: LoopBoundPool, listener: PostgresConnection.Configuration, metricsRegistry: PrometheusCollectorRegistry,
        clock: any WallClock = SystemWallClock(), logger: Logger, listenerBackoff: Duration = .milliseconds(100),
        listenerMaximumBackoff: Duration = .seconds(5), migrateOnStart: Bool = true, push: PushSettings? = nil, preparedStatements: Bool = true,
        familyWrites: FamilyWriteQueue.Limits = .init(), tracer: (any Tracer)? = nil, leaseWait: Duration = Database.connectionWait
    ) {
        self.tracer = tracer
        self.pool = pool
        let database = Database(serving: pool, families: FamilyWriteQueue(limits: familyWrites), leaseWait: leaseWait)
        self.database = database
        self.metricsRegistry = metricsRegistry
        self.clock = clock
        self.logger = logger
        self.migrateOnStart = migrateOnStart
        let longPolling = LongPolling(registry: metricsRegistry)
        self.longPolling = longPolling
        self.listener = PostgresChangeListener(
            configuration: listener, sink: longPolling.sink(knownDevices), logger: logger, initialBackoff: listenerBackoff, maximumBackoff: listenerMaximumBackoff
        )
        migrator = Migrator(logger: logger)
        migrationDatabase = listener
        let outbox = push.map { _ in PushOutbox(clock: clock) }
        // The one way every store changes a family (docs/architecture.md, "One change log").
        let changeLog = ChangeLog(database: database, logger: logger, outbox: outbox, knownDevices: knownDevices)
        families = PostgresFamilyStore(changeLog: changeLog, clock: clock, logger: logger)
        devices = PostgresDeviceStore(changeLog: changeLog, clock: clock, logger: logger)
        pairings = PostgresPairingStore(changeLog: changeLog, clock: clock, logger: logger)
        signIns = PostgresSignInStore(changeLog: changeLog, clock: clock, logger: logger)
        dashboardSessions = PostgresDashboardSessionStore(database: database, clock: clock, logger: logger)
        zones = PostgresZoneStore(changeLog: changeLog, clock: clock, logger: logger)
        recordWrites = PostgresRecordWrites(changeLog: changeLog, clock: clock, logger: logger)
        recordReads = PostgresRecordReads(changeLog: changeLog, logger: logger, preparedStatements: preparedStatements)
        tombstones = PostgresTombstonePurge(changeLog: changeLog, logger: logger)
        commandWrites = PostgresCommandWrites(changeLog: changeLog, clock: clock, logger: logger)
        commandReads = PostgresCommandReads(changeLog: changeLog, clock: clock, logger: logger)
        usageIntake = PostgresUsageIntake(changeLog: changeLog, clock: clock, logger: logger)
        usageReads = PostgresUsageReads(changeLog: changeLog, logger: logger)
        retention = PostgresRetention(changeLog: changeLog, clock: clock, logger: logger)
        audit = PostgresAuditStore(database: database, logger: logger)
        export = PostgresExport(changeLog: changeLog, clock: clock, logger: logger)
        polls = PostgresPollStore(database: database, logger: logger, preparedStatements: preparedStatements)
        members = PostgresMemberStore(changeLog: changeLog, clock: clock, logger: logger)
        alerts = PostgresAlertStore(changeLog: changeLog, clock: clock, logger: logger)
        healthIntake = PostgresHealthIntake(changeLog: changeLog, clock: clock, logger: logger, preparedStatements: preparedStatements)
        healthReads = PostgresHealthReads(changeLog: changeLog, clock: clock, logger: logger)
        fleetGauge = PostgresFleetGauge(changeLog: changeLog, clock: clock, logger: logger)
        trackingReports = PostgresTrackingReport(changeLog: changeLog, clock: clock, logger: logger)
        staleDetector = PostgresStaleDetector(changeLog: changeLog, clock: clock, logger: logger)
        healthMetrics = HealthMetrics(registry: metricsRegistry)
        shields = PostgresShieldStore(database: database, logger: logger)
        parentPINs = PostgresParentPINStore(changeLog: changeLog, clock: clock, logger: logger)
        pushes = PostgresPushStore(database: database, clock: clock, logger: logger)
        idempotencyKeys = PostgresIdempotencyKeys(database: database, logger: logger)
        self.push = push
        pushClaims = PostgresPushClaims(database: database, logger: logger)
        pushMetrics = PushMetrics(registry: metricsRegistry)
        databaseMetrics = DatabaseMetrics(registry: metricsRegistry, poolSize: pool.limit)
        shedMetrics = ShedMetrics(registry: metricsRegistry)
        pushListener = PostgresChangeListener(
            configuration: listener, sink: pushWake, logger: logger, initialBackoff: listenerBackoff, maximumBackoff: listenerMaximumBackoff,
            channel: PushOutbox.channel
        )
    }
}

extension ServerDependencies {
    /// Writes the reads counted so far, as the 30-second job does: for tests and harnesses.
    public func flushReadCounts() async {
        await ReadTallyService(tally: readTally, audit: audit, interval: .seconds(30), logger: logger).flush()
    }
}
