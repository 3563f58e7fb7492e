import ArgumentParser
import FamilySyncApp
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncServer
import FamilySyncWeb
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
    var port: SettingFlag<Int>?

    @Option(help: "Largest request body in bytes; larger ones are refused with 413 before they are read. Env: FAMILYSYNC_MAX_BODY_BYTES. Default: 4194304.")
    var maxBodyBytes: SettingFlag<Int>?

    @Option(help: "Seconds in-flight requests get to finish after SIGTERM. Env: FAMILYSYNC_SHUTDOWN_TIMEOUT. Default: 10.")
    var shutdownTimeout: SettingFlag<Int>?

    @Option(help: "HTTPS: a PEM file with the server's certificate (its chain after it). With --tls-key the port serves HTTPS, HTTP/2 and HTTP/1.1, and the pair is read again when either file changes. Env: FAMILYSYNC_TLS_CERTIFICATE.", completion: .file())
    var tlsCertificate: String?

    @Option(help: "HTTPS: a PEM file with the certificate's private key, not readable by other users (chmod 600). Env: FAMILYSYNC_TLS_KEY.", completion: .file())
    var tlsKey: String?

    @Option(help: "on or off: with a self-signed certificate, pairing QR codes carry the SHA-256 of the server's key and devices accept only that key (and --tls-next-certificate's). Env: FAMILYSYNC_PIN_IN_PAIRING. Default: off.")
    var pinInPairing: SettingFlag<OnOff>?

    @Option(help: "With --pin-in-pairing on: the self-signed certificate to be served next; its key is announced to paired devices from now on, so that the files can be switched to it later. Env: FAMILYSYNC_TLS_NEXT_CERTIFICATE.", completion: .file())
    var tlsNextCertificate: String?

    @Option(help: "Base URL devices reach this server at, written into pairing QR codes (https://sync.example.com). Env: FAMILYSYNC_PUBLIC_URL. Default: http:// (https:// with TLS) and the request's Host.")
    var publicURL: SettingFlag<URL>?

    @Option(help: "Requests a minute per client address to the endpoints that need no credential (family creation, pairing acceptance), also the burst. Env: FAMILYSYNC_UNAUTHENTICATED_RATE_LIMIT. Default: 20.")
    var unauthenticatedRateLimit: SettingFlag<Int>?

    @Option(help: "Requests a minute each device may send (a fifth of them at once); past it, 429 with Retry-After. Env: FAMILYSYNC_DEVICE_RATE_LIMIT. Default: 600.")
    var deviceRateLimit: SettingFlag<Int>?

    @Option(help: "Days tombstones (deleted records and zones) are kept; change tokens older than that answer 410. Env: FAMILYSYNC_TOMBSTONE_DAYS. Default: 30.")
    var tombstoneDays: SettingFlag<Int>?

    @Option(help: "Days usage records are kept (daily summaries stay). Env: FAMILYSYNC_USAGE_RETENTION_DAYS. Default: 400.")
    var usageRetentionDays: SettingFlag<Int>?

    @Option(help: "Seconds a connection may sit with nothing in flight (a request head never finished, an idle keep-alive) before it is closed; a request being answered, such as a held poll, is never idle. Env: FAMILYSYNC_IDLE_TIMEOUT. Default: 75.")
    var idleTimeout: SettingFlag<Int>?

    @Option(help: "Milliseconds a connection answered 429 or 503 with Retry-After waits before its next request is read (a trusted proxy's never waits); 0: none. A client that keeps Retry-After never notices; one that asks again at once is paced. Env: FAMILYSYNC_REFUSAL_READ_PAUSE. Default: 100.")
    var refusalReadPause: SettingFlag<Int>?

    @Option(help: "Sign in with Apple (§13): the app's client ids (the tokens' audience), comma-separated; none: the Apple endpoints answer 404. Env: FAMILYSYNC_APPLE_CLIENT_IDS.")
    var appleClientIds: SettingFlag<CommaSeparated>?

    @Option(help: "Where Apple's signing keys (a JWKS) are fetched. Env: FAMILYSYNC_APPLE_JWKS_URL. Default: https://appleid.apple.com/auth/keys.")
    var appleJwksUrl: SettingFlag<URL>?

    @Option(help: "Push (§12): the APNs auth key, a .p8 file from Apple's developer site. With --apns-key-id and --apns-team-id, push is on. Env: FAMILYSYNC_APNS_KEY_FILE.", completion: .file(extensions: ["p8"]))
    var apnsKeyFile: String?

    @Option(help: "Push: the APNs key's id (10 characters). Env: FAMILYSYNC_APNS_KEY_ID.")
    var apnsKeyId: String?

    @Option(help: "Push: the Apple developer team id (10 characters). Env: FAMILYSYNC_APNS_TEAM_ID.")
    var apnsTeamId: String?

    @Option(help: "Push: production or sandbox, to send every push to that APNs host; unset, each device's registration says. Env: FAMILYSYNC_APNS_ENVIRONMENT.")
    var apnsEnvironment: SettingFlag<PushRegistration.Environment>?

    @Option(help: "Push: at most one background push a device per this many seconds. Env: FAMILYSYNC_PUSH_MIN_INTERVAL. Default: 30.")
    var pushMinInterval: SettingFlag<Int>?

    @Option(help: "Push: POST each push as signed JSON to this URL instead of APNs (needs a secret). Env: FAMILYSYNC_PUSH_WEBHOOK_URL.")
    var pushWebhookUrl: SettingFlag<URL>?

    @Option(help: "Push: a file holding the webhook's HMAC-SHA-256 secret (at least 32 characters). Env: FAMILYSYNC_PUSH_WEBHOOK_SECRET (the secret itself).", completion: .file())
    var pushWebhookSecretFile: String?

    @Option(help: .hidden)
    /// Test-only: a stand-in APNs for both environments, and the PEM certificate to trust for it.
    var apnsUrl: String?

    @Option(help: .hidden, completion: .file())
    var apnsTrustRootFile: String?

    @Option(help: .hidden)
    /// Test-only: the server's clock runs this many times faster than the wall (1 to 1000), and
    /// its stale detector as often in proportion, so that a test sees a device go stale and a
    /// tracking alert come without waiting real minutes.
    var clockRate: Double?

    @Option(help: "Connections to PostgreSQL this instance opens at most, as requests need them, closing them after a minute idle (the database's max_connections must allow them on every instance, plus one for its change listener). Env: FAMILYSYNC_DB_CONNECTIONS. Default: 20.")
    var dbConnections: SettingFlag<Int>?

    @Option(help: "Proxies whose X-Forwarded-For names the client for the per-address rate limits: addresses and CIDR ranges, comma-separated (127.0.0.1,10.0.0.0/8,::1). Env: FAMILYSYNC_TRUSTED_PROXIES. Default: none (the peer's address counts).")
    var trustedProxies: SettingFlag<TrustedProxies>?

    @Option(help: "on or off: run the hottest reads as named prepared statements. Off behind PgBouncer before 1.21 in transaction mode, which does not track them. Env: FAMILYSYNC_PREPARED_STATEMENTS. Default: on.")
    var preparedStatements: SettingFlag<OnOff>?

    @Option(help: "PostgreSQL URL of the same database for the change listener's LISTEN connection, reached directly, when --database-url goes through a pooler in transaction mode (PgBouncer), which cannot carry LISTEN. Env: FAMILYSYNC_LISTEN_DATABASE_URL. Default: the database URL.")
    var listenDatabaseUrl: SettingFlag<ListenDatabaseURL>?

    @Option(help: "The operator's token for the fleet's weekly tracking report (GET /v1/fleet/tracking-report, familysync fleet report): a file holding it, at least 32 characters; familysync fleet token makes one. Unset: those endpoints answer 404. Env: FAMILYSYNC_OPERATOR_TOKEN (the token itself).", completion: .file())
    var operatorTokenFile: String?

    @Option(help: "Traces: send spans by OpenTelemetry's OTLP/HTTP to this collector (http://collector:4318; spans go to its /v1/traces). Unset: tracing is off. OTEL_EXPORTER_OTLP_HEADERS and the other OTEL_ variables refine it. Env: FAMILYSYNC_OTLP_ENDPOINT.")
    var otlpEndpoint: SettingFlag<URL>?

    @Option(help: "Traces: the share of requests traced, from 0 to 1 (a caller's traceparent is a link, not a parent). Env: FAMILYSYNC_TRACE_SAMPLE_RATIO. Default: 1.")
    var traceSampleRatio: SettingFlag<Double>?

    @Option(help: "on or off: request spans carry the request's path, whose ids name families, devices and members. Env: FAMILYSYNC_TRACE_IDS. Default: off.")
    var traceIds: SettingFlag<OnOff>?

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let settings = SettingSource(environment: environment)
        var configured = try serverConfiguration(settings)
        let push = try pushSettings(settings)
        let shutdownSeconds = try settings.wholeNumber(shutdownTimeout, "FAMILYSYNC_SHUTDOWN_TIMEOUT", named: "shutdown timeout", in: 0...3600) ?? 10
        let connections = try settings.wholeNumber(dbConnections, "FAMILYSYNC_DB_CONNECTIONS", named: "database connections", in: 1...1000)
            ?? LoopBoundPool.defaultLimit
        let source = try database.resolve(environment)
        let listenURL = try listenDatabaseURL(settings, source: source)
        let prepared = try settings.onOff(preparedStatements, "FAMILYSYNC_PREPARED_STATEMENTS", named: "prepared statements") ?? .on
        let logger = try logging.bootstrap(environment)
        configured.tls = try servedCertificate(settings, logger: logger)
        configured.keyPinning = try keyPinning(settings, served: configured.tls)
        let server = configured
        let tracing = try traceExport(settings, logger: logger)
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

        let started = ContinuousClock.now
        let (url, embedded) = try await EmbeddedDatabaseLauncher.open(source, logger: logger)
        do {
            let pool = try url.servingPool(connections: connections, logger: logger)
            let clock: any WallClock = clockRate.map { ScaledWallClock(rate: $0) } ?? SystemWallClock()
            let dependencies = ServerDependencies(
                pool: pool, listener: try (listenURL ?? url).connectionConfiguration(), metricsRegistry: registry, clock: clock, logger: logger, push: push,
                preparedStatements: prepared == .on, tracer: tracing?.tracer
            )
            if let push {
                logger.info("push on", metadata: ["to": "\(push.destination.description)", "minimumInterval": "\(push.minimumInterval)"])
            }
            let app = buildApplication(configuration: server, dependencies: dependencies, modules: [WebDashboard()]) { channel in
                logger.notice("listening", metadata: [
                    "address": "\(server.scheme)://\(server.host):\(channel.localAddress?.port ?? server.port)",
                    "startup_ms": "\(Int((ContinuousClock.now - started) / .milliseconds(1)))",
                ])
            }
            // Graceful shutdown (stop accepting, finish requests in flight, close the pool) is
            // bounded; past the bound the remaining work is cancelled.
            // The supervisor comes first, so it is the last to stop: the database stays looked
            // after while requests in flight finish.
            var services: [ServiceGroupConfiguration.ServiceConfiguration] = embedded.map { [.init(service: EmbeddedDatabaseSupervisor(database: $0, logger: logger))] } ?? []
            // The trace exporter stops after the server, and sends the last requests' spans. Should
            // it end on its own, the server goes on serving without it: traces are not worth an outage.
            if let tracing {
                services.append(.init(service: tracing.service, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore))
                logger.info("tracing on", metadata: ["to": "\(tracing.endpoint)"])
            }
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

    /// The certificate and key to serve HTTPS with, read and checked now; nil without either.
    private func servedCertificate(_ settings: SettingSource, logger: Logger) throws -> ServedCertificate? {
        let certificate = (tlsCertificate ?? settings.environment["FAMILYSYNC_TLS_CERTIFICATE"]).flatMap { $0.isEmpty ? nil : $0 }
        let key = (tlsKey ?? settings.environment["FAMILYSYNC_TLS_KEY"]).flatMap { $0.isEmpty ? nil : $0 }
        switch (certificate, key) {
        case (nil, nil): return nil
        case (_?, nil): throw OperatorError.configuration("--tls-certificate needs --tls-key too")
        case (nil, _?): throw OperatorError.configuration("--tls-key needs --tls-certificate too")
        case (let certificate?, let key?):
            do {
                return try ServedCertificate(certificateFile: certificate, keyFile: key, logger: logger)
            } catch {
                throw OperatorError.configuration(error.description)
            }
        }
    }

    /// Pairing under pins (§3.2): only with a self-signed certificate served.
    private func keyPinning(_ settings: SettingSource, served: ServedCertificate?) throws -> KeyPinning? {
        let next = (tlsNextCertificate ?? settings.environment["FAMILYSYNC_TLS_NEXT_CERTIFICATE"]).flatMap { $0.isEmpty ? nil : $0 }
        guard try settings.onOff(pinInPairing, "FAMILYSYNC_PIN_IN_PAIRING", named: "pin in pairing") == .on else {
            if next != nil { throw OperatorError.configuration("--tls-next-certificate needs --pin-in-pairing on") }
            return nil
        }
        guard let served else { throw OperatorError.configuration("--pin-in-pairing needs --tls-certificate and --tls-key") }
        guard served.current.isSelfSigned else {
            throw OperatorError.configuration("--pin-in-pairing is for a self-signed certificate; devices already check the one in \(served.certificateFile), which a CA issued")
        }
        var nextPin: KeyPin?
        if let next {
            do {
                nextPin = KeyPin(digest: try CertificateAndKey.nextKeyPin(certificateFile: next))
            } catch {
                throw OperatorError.configuration(error.description)
            }
        }
        return KeyPinning(served: served, next: nextPin)
    }

    /// The operator token from its file or its variable (the file's trailing newline dropped); nil
    /// when neither is given.
    private func operatorToken(_ environment: [String: String]) throws -> OperatorToken? {
        guard let text = try SecretSetting.text(
            file: operatorTokenFile, variable: "FAMILYSYNC_OPERATOR_TOKEN", environment: environment, named: "operator token", emptyIsUnset: true
        ) else { return nil }
        guard let token = OperatorToken(text) else {
            throw OperatorError.configuration("the operator token must be at least \(OperatorToken.minimumLength) visible characters (familysync fleet token makes one)")
        }
        return token
    }

    /// OpenTelemetry's exporter when a collector is named; nil otherwise.
    private func traceExport(_ settings: SettingSource, logger: Logger) throws -> TraceExport? {
        guard let endpoint = try settings.webURL(
            otlpEndpoint, "FAMILYSYNC_OTLP_ENDPOINT", requirement: "the OTLP endpoint must be an http:// or https:// URL without a query", allowsQuery: false
        ), !endpoint.isEmpty else { return nil }
        let ratio = try settings.value(traceSampleRatio, "FAMILYSYNC_TRACE_SAMPLE_RATIO") ?? 1
        guard (0...1).contains(ratio) else { throw OperatorError.configuration("the trace sample ratio must be from 0 to 1, not '\(ratio)'") }
        return try TraceExport.start(endpoint: endpoint, ratio: ratio, logger: logger)
    }

    /// The listener's own URL, for a pool behind a transaction pooler; only beside a database URL.
    private func listenDatabaseURL(_ settings: SettingSource, source: DatabaseOptions.Source) throws -> DatabaseURL? {
        let variable = "FAMILYSYNC_LISTEN_DATABASE_URL"
        guard settings.isSet(listenDatabaseUrl, variable, emptyIsUnset: true) else { return nil }
        guard case .url = source else {
            throw OperatorError.configuration("a listen database URL needs a database URL (--database-url or DATABASE_URL); the embedded database is listened to directly")
        }
        return try settings.value(listenDatabaseUrl, variable, emptyIsUnset: true)?.url
    }

    private func serverConfiguration(_ settings: SettingSource) throws -> ServerConfiguration {
        let host = host ?? settings.environment["FAMILYSYNC_HOST"] ?? ServerConfiguration.defaultHost
        guard !host.isEmpty else { throw OperatorError.configuration("host must not be empty") }
        let port = try settings.wholeNumber(port, "FAMILYSYNC_PORT", named: "port", in: 1...65535) ?? ServerConfiguration.defaultPort
        let maxBody = try settings.wholeNumber(maxBodyBytes, "FAMILYSYNC_MAX_BODY_BYTES", named: "max body bytes", in: 1024...(1 << 30)) ?? Limits.defaultMaxBodyBytes
        let publicURL = try settings.webURL(
            publicURL, "FAMILYSYNC_PUBLIC_URL", requirement: "public URL must be an http:// or https:// URL without a query", allowsQuery: false
        )
        let rate = try settings.wholeNumber(
            unauthenticatedRateLimit, "FAMILYSYNC_UNAUTHENTICATED_RATE_LIMIT", named: "unauthenticated rate limit", in: 1...1_000_000
        ) ?? RateLimit.unauthenticatedDefault.perMinute
        let deviceRate = try settings.wholeNumber(
            deviceRateLimit, "FAMILYSYNC_DEVICE_RATE_LIMIT", named: "device rate limit", in: 1...1_000_000
        ) ?? RateLimit.deviceDefault.perMinute
        let tombstoneDays = try settings.wholeNumber(tombstoneDays, "FAMILYSYNC_TOMBSTONE_DAYS", named: "tombstone days", in: 1...3650) ?? 30
        let retentionDays = try settings.wholeNumber(usageRetentionDays, "FAMILYSYNC_USAGE_RETENTION_DAYS", named: "usage retention days", in: 1...36500) ?? 400
        let idleSeconds = try settings.wholeNumber(idleTimeout, "FAMILYSYNC_IDLE_TIMEOUT", named: "idle timeout", in: 1...3600) ?? 75
        let refusalPause = try settings.wholeNumber(refusalReadPause, "FAMILYSYNC_REFUSAL_READ_PAUSE", named: "refusal read pause", in: 0...10_000) ?? 100
        let appleClientIDs = try settings.value(appleClientIds, "FAMILYSYNC_APPLE_CLIENT_IDS")?.items ?? []
        let appleJWKS = try settings.webURL(appleJwksUrl, "FAMILYSYNC_APPLE_JWKS_URL", requirement: "the Apple JWKS URL must be an http:// or https:// URL")
            ?? ServerConfiguration.appleJWKSDefault
        let proxies = try settings.value(trustedProxies, "FAMILYSYNC_TRUSTED_PROXIES") ?? .none
        if let clockRate, !(1...1000).contains(clockRate) {
            throw OperatorError.configuration("clock rate must be from 1 to 1000, not '\(clockRate)'")
        }
        var configuration = ServerConfiguration(
            host: host, port: port, limits: Limits(maxBodyBytes: maxBody),
            publicURL: publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 },
            unauthenticatedRateLimit: RateLimit(burst: rate, perMinute: rate),
            tombstoneHorizon: TimeInterval(tombstoneDays) * 86_400,
            usageRetention: TimeInterval(retentionDays) * 86_400,
            idleTimeout: .seconds(idleSeconds),
            appleJWKSURL: appleJWKS, appleClientIDs: appleClientIDs,
            healthCheckInterval: .milliseconds(Int64(15_000 / (clockRate ?? 1))), trustedProxies: proxies
        )
        configuration.tracesRecordPaths = try settings.onOff(traceIds, "FAMILYSYNC_TRACE_IDS", named: "trace ids") == .on
        configuration.refusalReadPause = .milliseconds(refusalPause)
        configuration.deviceRateLimit = .device(perMinute: deviceRate)
        configuration.operatorToken = try operatorToken(settings.environment)
        return configuration
    }

    /// Push (§12) from the flags: APNs when its three are set, the webhook when its URL is; off
    /// when none is.
    func pushSettings(_ settings: SettingSource) throws -> PushSettings? {
        let environment = settings.environment
        let keyFile = apnsKeyFile ?? environment["FAMILYSYNC_APNS_KEY_FILE"]
        let keyID = apnsKeyId ?? environment["FAMILYSYNC_APNS_KEY_ID"]
        let teamID = apnsTeamId ?? environment["FAMILYSYNC_APNS_TEAM_ID"]
        let webhookSet = settings.isSet(pushWebhookUrl, "FAMILYSYNC_PUSH_WEBHOOK_URL")
        let interval = try settings.wholeNumber(pushMinInterval, "FAMILYSYNC_PUSH_MIN_INTERVAL", named: "push minimum interval", in: 1...3600)
            ?? Int(BackgroundPush.defaultMinimumInterval)
        let apnsNamed = [("--apns-key-file", keyFile), ("--apns-key-id", keyID), ("--apns-team-id", teamID)]
        let destination: PushSettings.Destination
        if apnsNamed.contains(where: { $0.1 != nil }) {
            let missing = apnsNamed.filter { $0.1 == nil }.map(\.0)
            guard missing.isEmpty else { throw OperatorError.configuration("APNs needs \(missing.joined(separator: " and ")) too") }
            guard !webhookSet else { throw OperatorError.configuration("push goes to APNs or to a webhook, not both") }
            guard let keyFile, let keyID, let teamID else { return nil }
            for (name, value) in [("key id", keyID), ("team id", teamID)] where !(value.count == 10 && value.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) })) {
                throw OperatorError.configuration("the APNs \(name) is 10 capital letters and digits, not '\(value)'")
            }
            let pem: String
            do {
                pem = try String(contentsOfFile: keyFile, encoding: .utf8)
                try PushSettings.checkAPNsKey(pem)
            } catch {
                throw OperatorError.configuration("the APNs key file \(keyFile) is not a readable .p8 (P-256) key: \(error)")
            }
            let target = try settings.value(apnsEnvironment, "FAMILYSYNC_APNS_ENVIRONMENT")
            destination = .apns(keyPEM: pem, keyID: keyID, teamID: teamID, environment: target)
        } else if let webhook = try settings.webURL(
            pushWebhookUrl, "FAMILYSYNC_PUSH_WEBHOOK_URL", requirement: "the push webhook URL must be an http:// or https:// URL"
        ) {
            let secret = try SecretSetting.text(
                file: pushWebhookSecretFile, variable: "FAMILYSYNC_PUSH_WEBHOOK_SECRET", environment: environment, named: "push webhook secret"
            )
            guard let secret, secret.utf8.count >= 32 else {
                throw OperatorError.configuration("the push webhook needs a secret of at least 32 characters (--push-webhook-secret-file or FAMILYSYNC_PUSH_WEBHOOK_SECRET)")
            }
            destination = .webhook(url: webhook, secret: Array(secret.utf8))
        } else {
            return nil
        }
        var trustRoots: [String]?
        if let file = apnsTrustRootFile {
            trustRoots = [try String(contentsOfFile: file, encoding: .utf8)]
        }
        return PushSettings(destination: destination, minimumInterval: TimeInterval(interval), apnsBaseURL: apnsUrl, trustRoots: trustRoots)
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
            // At start the server tries for a minute before it gives up (`StartupRetry`).
            return OperatorError.runtime("the database could not be reached: \(DatabaseErrorTranslation.describeForOperator(error))")
        default:
            return OperatorError.runtime(DatabaseErrorTranslation.describeForOperator(error))
        }
    }
}
