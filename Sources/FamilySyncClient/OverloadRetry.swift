import FamilySyncCore

/// When the SDK sends a call again by itself after `TRY_AGAIN_LATER` (PROTOCOL §1.1,
/// "Overload"): a server that shed the request before doing anything (a busy family or pool) may
/// be asked again whatever the request; any other 503 (the database away, a collision, a server
/// stopping) only when sending it twice does what sending it once does, the rule of connection
/// loss. At most three attempts in all, each after the server's `Retry-After` (when it asks for at
/// most five seconds) grown with the attempt and jittered, so that a family's devices shed at once
/// do not come back at once. Longer waits are the caller's: the sync engine and the upload queue
/// keep their own.
enum OverloadRetry {
    static let attempts = 3
    static let longestWait = 5

    static func wait(after failure: FamilySyncError, attempt: Int, replayable: Bool) -> Duration? {
        guard failure.code == .tryAgainLater, attempt < attempts else { return nil }
        let shedBeforeWork = TryAgainReason(failure).map { $0 != .databaseUnavailable } ?? false
        guard shedBeforeWork || replayable else { return nil }
        let seconds = failure.retryAfter ?? 1
        guard seconds <= longestWait else { return nil }
        return .seconds(max(seconds, 1) * attempt) * Double.random(in: 1...1.5)
    }
}
