import FamilySyncClient
import FamilySyncCore
import Testing

/// The one backoff of the engine and the queue (docs/sdk.md).
@Suite struct RetryBackoffTests {
    let backoff = RetryBackoff(initial: .seconds(1), maximum: .seconds(8))

    @Test func theServersRetryAfterIsWaitedAsGiven() {
        let (wait, next) = backoff.wait(after: FamilySyncError(.throttled, "Slow down.", retryAfter: 7), delay: .seconds(2), jitter: 0.5)
        #expect(wait == .seconds(7))
        #expect(next == .seconds(4))
    }

    @Test func withoutOneTheDelayIsJitteredAndDoublesToTheMaximum() {
        var delay = backoff.initial
        var waits: [Duration] = []
        for _ in 0..<6 {
            let (wait, next) = backoff.wait(after: .unavailable("Down.", retryAfter: 2).withoutRetryAfter, delay: delay, jitter: 0.5)
            waits.append(wait)
            delay = next
        }
        #expect(waits == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4)])
    }
}

extension FamilySyncError {
    var withoutRetryAfter: FamilySyncError {
        var error = self
        error.retryAfter = nil
        return error
    }
}
