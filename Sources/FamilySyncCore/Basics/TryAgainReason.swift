/// Why a request was answered `TRY_AGAIN_LATER` for want of the database (PROTOCOL §1.1,
/// "Overload"): the three are told apart in the reason, in `Retry-After` and in the metric
/// `familysync_requests_shed_total{reason}`, so that neither a client nor an operator reads a busy
/// server as a dead database.
public enum TryAgainReason: String, Sendable, CaseIterable {
    /// No connection to the database could be had, and none of this instance's is in use.
    case databaseUnavailable = "database_unavailable"
    /// Every connection of this instance's pool was in use for the whole wait.
    case poolExhausted = "pool_exhausted"
    /// One family's writes filled its line in this instance (`FamilyWriteQueue`); others are served.
    case familyBusy = "family_busy"
    /// This instance streams as many exports as it takes at once, or this family's own (§15.2).
    case exportsBusy = "exports_busy"

    /// Seconds to wait: a busy server or family frees up in well under a second; a database that
    /// went away takes PostgreSQL's own crash recovery, a few seconds.
    public var retryAfter: Int {
        switch self {
        case .databaseUnavailable: 2
        case .poolExhausted, .familyBusy: 1
        // An export runs for seconds to minutes.
        case .exportsBusy: 10
        }
    }

    /// What the client reads.
    public var reason: String {
        switch self {
        case .databaseUnavailable: "The database is unavailable."
        case .poolExhausted: "Every connection this server has to the database is in use; send this again in a moment."
        case .familyBusy: "This family has too many writes waiting on this server; send this one again in a moment."
        case .exportsBusy: "This server is already streaming as many exports as it takes at once, or one of this family's; ask again later."
        }
    }

    public var error: FamilySyncError {
        .unavailable(reason, retryAfter: retryAfter)
    }

    /// The reason `error` was answered for, if it is one of these.
    public init?(_ error: FamilySyncError) {
        guard let reason = Self.allCases.first(where: { $0.error == error }) else { return nil }
        self = reason
    }
}
