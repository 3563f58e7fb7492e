import ArgumentParser
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncServer
import Foundation
import Logging
import Metrics
import NIOCore
import PostgresNIO
import Prometheus
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server: applies migrations, then serves HTTP until SIGTERM or SIGINT."
    )

    @Option(help: "Address to listen on. Env: FAMILYSYNC_HOST. Default: 127.0.0.1.")
    var host: String?

    @Option(help: "Port to listen on. Env: FAMILYSYNC_PORT. Default: 8080.")
    var port: String?

    @Option(help: "Largest request body in bytes; larger ones are refused with 413 before they are read. Env: FAMILYSYNC_MAX_BODY_BYTES. Default: 4194304.")
    var maxBodyBytes: String?

    @Option(help: "Seconds in-flight requests get to finish after SIGTERM. Env: FAMILYSYNC_SHUTDOWN_TIMEOUT. Default: 10.")
    var shutdownTimeout: String?

    @Option(help: "Base URL devices reach this server at, written into pairing QR codes (https://sync.example.com). Env: FAMILYSYNC_PUBLIC_URL. Default: http:// and the request's Host.")
    var publicURL: String?

    @Option(help: "Requests a minute per client address to the endpoints that need no credential (family creation, pairing acceptance), also the burst. Env: FAMILYSYNC_UNAUTHENTICATED_RATE_LIMIT. Default: 20.")
    var unauthenticatedRateLimit: String?

    @Option(help: "Days tombstones (deleted records and zones) are kept; change tokens older than that answer 410. Env: FAMILYSYNC_TOMBSTONE_DAYS. Default: 30.")
    var tombstoneDays: String?

    @Option(help: "Days usage records are kept (daily summaries stay). Env: FAMILYSYNC_USAGE_RETENTION_DAYS. Default: 400.")
    var usageRetentionDays: String?

    @Option(help: "Seconds a connection may sit with nothing in flight (a request head never finished, an idle keep-alive) before it is closed; a request being answered, such as a held poll, is never idle. Env: FAMILYSYNC_IDLE_TIMEOUT. Default: 75.")
    var idleTimeout: String?

    @Option(help: "Sign in with Apple (§13): the app's client ids (the tokens' audience), comma-separated; none: the Apple endpoints answer 404. Env: FAMILYSYNC_APPLE_CLIENT_IDS.")
    var appleClientIds: String?

    @Option(help: "Where Apple's signing keys (a JWKS) are fetched. Env: FAMILYSYNC_APPLE_JWKS_URL. Default: https://appleid.apple.com/auth/keys.")
    var appleJwksUrl: String?

    @Option(help: .hidden)
    /// Test-only: the server's clock runs this many times faster than the wall (1 to 1000), and
    /// its stale detector as often in proportion, so that a test sees a device go stale and a
    /// tracking alert come without waiting real minutes.
    var clockRate: Double?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let server = try serverConfiguration(environment)
        let shutdownSeconds = try Self.integer(shutdownTimeout ?? environment["FAMILYSYNC_SHUTDOWN_TIMEOUT"], named: "shutdown timeout", default: 10, range: 0...3600)
        let source = try database.resolve(environment)
        let logger = try logging.bootstrap(environment)
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

        let started = ContinuousClock.now
        let (url, embedded) = try await EmbeddedDatabaseLauncher.open(source, logger: logger)
        do {
            let client = PostgresClient(configuration: url.clientConfiguration(), backgroundLogger: logger)
            let clock: any WallClock = clockRate.map { ScaledWallClock(rate: $0) } ?? SystemWallClock()
            let dependencies = ServerDependencies(postgres: client, listener: try url.connectionConfiguration(), metricsRegistry: registry, clock: clock, logger: logger)
            let app = buildApplication(configuration: server, dependencies: dependencies) { channel in
                logger.notice("listening", metadata: [
                    "address": "http://\(server.host):\(channel.localAddress?.port ?? server.port)",
                    "startup_ms": "\(Int((ContinuousClock.now - started) / .milliseconds(1)))",
                ])
            }
            // Graceful shutdown (stop accepting, finish requests in flight, close the pool) is
            // bounded; past the bound the remaining work is cancelled.
            // The supervisor comes first, so it is the last to stop: the database stays looked
            // after while requests in flight finish.
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = embedded.map { [.init(service: EmbeddedDatabaseSupervisor(database: $0, logger: logger))] } ?? []
            services.append(.init(service: app))
            var lifecycle = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            lifecycle.maximumGracefulShutdownDuration = .seconds(shutdownSeconds)
            lifecycle.maximumCancellationDuration = .seconds(5)
            try await ServiceGroup(configuration: lifecycle).run()
        } catch {
            await EmbeddedDatabaseLauncher.close(embedded, logger: logger)
            throw Self.operatorError(for: error, server: server)
        }
        await EmbeddedDatabaseLauncher.close(embedded, logger: logger)
        logger.info("stopped")
    }

    private func serverConfiguration(_ environment: [String: String]) throws -> ServerConfiguration {
        let host = host ?? environment["FAMILYSYNC_HOST"] ?? ServerConfiguration.defaultHost
        guard !host.isEmpty else { throw OperatorError.configuration("host must not be empty") }
        let port = try Self.integer(port ?? environment["FAMILYSYNC_PORT"], named: "port", default: ServerConfiguration.defaultPort, range: 1...65535)
        let maxBody = try Self.integer(
            maxBodyBytes ?? environment["FAMILYSYNC_MAX_BODY_BYTES"], named: "max body bytes",
            default: Limits.defaultMaxBodyBytes, range: 1024...(1 << 30)
        )
        let publicURL = publicURL ?? environment["FAMILYSYNC_PUBLIC_URL"]
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, url.query == nil else {
                throw OperatorError.configuration("public URL must be an http:// or https:// URL without a query, not '\(publicURL)'")
            }
        }
        let rate = try Self.integer(
            unauthenticatedRateLimit ?? environment["FAMILYSYNC_UNAUTHENTICATED_RATE_LIMIT"], named: "unauthenticated rate limit",
            default: RateLimit.unauthenticatedDefault.perMinute, range: 1...1_000_000
        )
        let tombstoneDays = try Self.integer(tombstoneDays ?? environment["FAMILYSYNC_TOMBSTONE_DAYS"], named: "tombstone days", default: 30, range: 1...3650)
        let retentionDays = try Self.integer(
            usageRetentionDays ?? environment["FAMILYSYNC_USAGE_RETENTION_DAYS"], named: "usage retention days", default: 400, range: 1...36500
        )
        let idleSeconds = try Self.integer(idleTimeout ?? environment["FAMILYSYNC_IDLE_TIMEOUT"], named: "idle timeout", default: 75, range: 1...3600)
        let appleClientIDs = (appleClientIds ?? environment["FAMILYSYNC_APPLE_CLIENT_IDS"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let appleJWKS = appleJwksUrl ?? environment["FAMILYSYNC_APPLE_JWKS_URL"] ?? ServerConfiguration.appleJWKSDefault
        guard let jwks = URL(string: appleJWKS), ["http", "https"].contains(jwks.scheme ?? ""), jwks.host != nil else {
            throw OperatorError.configuration("the Apple JWKS URL must be an http:// or https:// URL, not '\(appleJWKS)'")
        }
        if let clockRate, !(1...1000).contains(clockRate) {
            throw OperatorError.configuration("clock rate must be from 1 to 1000, not '\(clockRate)'")
        }
        return ServerConfiguration(
            host: host, port: port, limits: Limits(maxBodyBytes: maxBody),
            publicURL: publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 },
            unauthenticatedRateLimit: RateLimit(burst: rate, perMinute: rate),
            tombstoneHorizon: TimeInterval(tombstoneDays) * 86_400,
            usageRetention: TimeInterval(retentionDays) * 86_400,
            idleTimeout: .seconds(idleSeconds),
            appleJWKSURL: appleJWKS, appleClientIDs: appleClientIDs,
            healthCheckInterval: .milliseconds(Int64(15_000 / (clockRate ?? 1)))
        )
    }

    static func integer(_ text: String?, named name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw OperatorError.configuration("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// Failures to bind and refused databases are the operator's to fix (exit 2); the rest is exit 1.
    static func operatorError(for error: any Error, server: ServerConfiguration) -> any Error {
        switch error {
        case let error as OperatorError:
            return error
        case let error as IOError where [EADDRINUSE, EACCES, EADDRNOTAVAIL].contains(error.errnoCode):
            let reason = error.errnoCode == EADDRINUSE ? "is already in use" : "cannot be used (\(String(cString: strerror(error.errnoCode))))"
            return OperatorError.configuration("port \(server.port) on \(server.host) \(reason)")
        case let error as MigrationError:
            if case .failed = error { return OperatorError.runtime(error.description) }
            return OperatorError.configuration(error.description)
        case let error as EmbeddedPostgresError:
            return error.isConfigurationProblem ? OperatorError.configuration(error.description) : OperatorError.runtime(error.description)
        case _ where DatabaseErrorTranslation.translate(error)?.code == .tryAgainLater:
            // At start the pool tries for a minute before it gives up.
            return OperatorError.runtime("the database could not be reached: \(DatabaseErrorTranslation.describeForOperator(error))")
        default:
            return OperatorError.runtime(DatabaseErrorTranslation.describeForOperator(error))
        }
    }
}
