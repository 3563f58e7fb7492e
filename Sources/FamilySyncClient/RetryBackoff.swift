import FamilySyncCore

/// How the sync engine and the upload queue wait before asking again after `TRY_AGAIN_LATER` or
/// `THROTTLED` (docs/sdk.md): the server's `Retry-After` when it gave one, else the current delay
/// with jitter (half of it to all of it), the delay doubling after each wait up to `maximum`.
/// `attempts` bounds the tries of a caller that gives up (the queue's flush); the engine does not.
public struct RetryBackoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration
    public var attempts: Int

    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60), attempts: Int = 6) {
        self.initial = initial
        self.maximum = maximum
        self.attempts = attempts
    }

    /// The wait after `error` when the delay is `delay`, and the delay after it. `jitter` is the
    /// share of the delay waited (0.5–1, random by default).
    public func wait(after error: FamilySyncError, delay: Duration, jitter: Double = .random(in: 0.5...1.0)) -> (wait: Duration, next: Duration) {
        (error.retryAfter.map { .seconds($0) } ?? delay * jitter, min(delay * 2, maximum))
    }
}
