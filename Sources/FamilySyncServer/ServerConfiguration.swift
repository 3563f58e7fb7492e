import FamilySyncCore
import Foundation

/// What the HTTP side of the server is told by its operator.
public struct ServerConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var limits: Limits
    /// The base URL clients reach the server at, written into QR payloads; nil: the request's Host.
    public var publicURL: String?
    /// Per client address, for family creation and pairing acceptance.
    public var unauthenticatedRateLimit: RateLimit
    /// How long tombstones are kept, and so how old a change token may be (PROTOCOL §5.5, §14).
    public var tombstoneHorizon: TimeInterval
    /// The operator's maximum retention of every kind of a family's data (§15.1), and the default
    /// of a family that sets none; usage older than it is refused.
    public var usageRetention: TimeInterval
    /// `usageRetention` in whole days.
    public var retentionDays: Int { max(1, Int(usageRetention / 86_400)) }
    /// A connection with nothing in flight for this long is closed: one that never finishes its
    /// request head, or an idle keep-alive. A request being answered (a held poll) never counts as
    /// idle. Longer than the SDK's own pool keeps idle connections (60 s), so the client closes
    /// first and never sends on a connection the server is closing.
    public var idleTimeout: Duration
    /// The pace a request body must keep, or its connection is answered 408 and closed
    /// (`BodyArrivalPace`, PROTOCOL §1.3).
    public var bodyPace: BodyPace = .standard
    /// How many request bodies may be arriving at once from one address block (`AddressBlock`),
    /// across its connections; one more is answered 429 and closed. A trusted proxy's are not counted.
    public var bodiesInFlightPerAddress = 16
    /// Wrong recovery codes and Apple tokens per client address (§13).
    public var recoveryFailureLimit: RateLimit
    /// Wrong sign-in codes taken (§3.1), per family and per client address.
    public var signInCodeFailureLimit: RateLimit = .signInCodeFailuresDefault
    /// Requests per authenticated device (§1.2), in memory of each instance.
    public var deviceRateLimit: RateLimit = .deviceDefault
    /// Sign in with Apple (§13): the keys' URL, and the app's client ids (`aud`); none: the Apple
    /// endpoints answer 404.
    public var appleJWKSURL: String
    public var appleClientIDs: [String]
    /// How often the stale detector runs (§10: a device turns stale within 60 s of its 120 s mark).
    public var healthCheckInterval: Duration
    /// Proxies whose `X-Forwarded-For` names the client for the per-client limits.
    public var trustedProxies: TrustedProxies
    /// How often the reads counted for the audit log (`ReadTally`) are written, and at shutdown.
    public var readTallyInterval: Duration
    /// After a `429` or `503` with `Retry-After`, how long a connection's next request waits
    /// unread (`ReadsPausedAfterRefusal`); zero: not at all. A trusted proxy's never waits.
    public var refusalReadPause: Duration = .milliseconds(100)
    /// With tracing on, whether request spans carry the path, whose ids name families, devices
    /// and members (`--trace-ids`; off by default).
    public var tracesRecordPaths = false
    /// The operator's token for the fleet's endpoints (§10.1); nil: they answer 404.
    public var operatorToken: OperatorToken?
    /// HTTPS (PROTOCOL §1.4): the certificate and key served, read again when their
    /// files change; nil: plain HTTP.
    package var tls: ServedCertificate?
    /// The served key's pin in pairings' QR payloads and every answer (§3.2); nil: none.
    package var keyPinning: KeyPinning?

    /// The scheme of the URL devices reach this server at when no public URL is configured.
    public var scheme: String { tls == nil ? "http" : "https" }

    public static let appleJWKSDefault = "https://appleid.apple.com/auth/keys"

    public static let defaultHost = "127.0.0.1"
    public static let defaultPort = 8080

    public init(
        host: String = defaultHost, port: Int = defaultPort, limits: Limits = Limits(), publicURL: String? = nil,
        unauthenticatedRateLimit: RateLimit = .unauthenticatedDefault, tombstoneHorizon: TimeInterval = 30 * 86_400,
        usageRetention: TimeInterval = 400 * 86_400, idleTimeout: Duration = .seconds(75),
        recoveryFailureLimit: RateLimit = .recoveryFailuresDefault, appleJWKSURL: String = appleJWKSDefault, appleClientIDs: [String] = [],
        healthCheckInterval: Duration = .seconds(15), trustedProxies: TrustedProxies = .none, readTallyInterval: Duration = .seconds(30)
    ) {
        self.trustedProxies = trustedProxies
        self.readTallyInterval = readTallyInterval
        self.healthCheckInterval = healthCheckInterval
        self.recoveryFailureLimit = recoveryFailureLimit
        self.appleJWKSURL = appleJWKSURL
        self.appleClientIDs = appleClientIDs
        self.idleTimeout = idleTimeout
        self.tombstoneHorizon = tombstoneHorizon
        self.usageRetention = usageRetention
        self.host = host
        self.port = port
        self.limits = limits
        self.publicURL = publicURL
        self.unauthenticatedRateLimit = unauthenticatedRateLimit
    }
}
