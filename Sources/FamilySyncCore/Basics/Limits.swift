/// The limits of PROTOCOL §14 that the foundation enforces. Later capabilities add theirs here
/// so that one place says what a client may send.
public struct Limits: Sendable, Equatable {
    /// Largest request body accepted, checked before the body is read in full.
    public var maxBodyBytes: Int

    public static let defaultMaxBodyBytes = 4 * 1024 * 1024

    public init(maxBodyBytes: Int = Limits.defaultMaxBodyBytes) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Live members of a family (PROTOCOL §14).
    public static let maximumMembers = 50
    /// Live `Schedule` records of one member (PROTOCOL §14).
    public static let schedulesPerMember = 50

    /// Operations of one `records/modify`, and names of one `records/lookup`.
    public static let maximumOperations = 400
    /// Records a page of changes, usage or a query may hold (`limit`, `resultsLimit`).
    public static let pageSizes = 1...1000
    public static let defaultPageSize = 200
    /// Zones of one `POST /v1/changes/zones`, and the records its whole answer may hold (§5.5):
    /// each zone's page keeps to `limit`, and all of them together to the largest single page.
    public static let maximumZonesPerFetch = 50
    public static let maximumRecordsPerZonesFetch = 1000
    /// Filters and sort fields of one `records/query`.
    public static let maximumQueryFilters = 20
    public static let maximumQuerySorts = 5
    /// `AppConfiguration` records that travel with one command, and the size of its payload.
    public static let maximumCommandConfigurations = 400
    public static let maximumCommandPayloadBytes = 64 * 1024
}

/// A rate limit: `burst` requests at once, then `perMinute` a minute.
public struct RateLimit: Sendable, Equatable {
    public var burst: Int
    public var perMinute: Int

    public init(burst: Int, perMinute: Int) {
        self.burst = burst
        self.perMinute = perMinute
    }

    public var refillPerSecond: Double { Double(perMinute) / 60 }

    /// Unauthenticated endpoints: enough for a family setting up several devices, not for guessing.
    public static let unauthenticatedDefault = RateLimit(burst: 20, perMinute: 20)

    /// Wrong recovery codes and Apple tokens per address (§13): five, then one a minute.
    public static let recoveryFailuresDefault = RateLimit(burst: 5, perMinute: 1)

    /// Wrong sign-in codes taken (§3.1), per family and per address: ten, then one a minute. A
    /// parent mistyping a code shown on a screen needs a few; 2⁴⁰ codes are not guessed at that.
    public static let signInCodeFailuresDefault = RateLimit(burst: 10, perMinute: 1)

    /// Requests per device (§1.2): a sync's burst at once, then ten a second. A device's day is a
    /// few hundred requests; a loop that asks as fast as it can is held to this.
    public static let deviceDefault = device(perMinute: 600)

    /// The per-device limit for `perMinute` requests a minute: a burst of a fifth of them, at least one.
    public static func device(perMinute: Int) -> RateLimit {
        RateLimit(burst: max(1, perMinute / 5), perMinute: perMinute)
    }
}
