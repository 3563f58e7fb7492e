import FamilySyncCore
import Foundation
import Hummingbird
import Synchronization

/// A token bucket per key (an address, a family, a device), in memory of this instance: the
/// buckets of `RateLimitMiddleware`, shared by the routes it guards, and of the other limits.
package final class RateLimiter<Key: Hashable & Sendable>: Sendable {
    let limit: RateLimit
    let clock: any WallClock
    private let buckets = Mutex<[Key: TokenBucket]>([:])

    package init(limit: RateLimit, clock: any WallClock) {
        self.limit = limit
        self.clock = clock
    }

    /// Puts back the token `take` took, for an attempt that turned out not to count against the
    /// limit (a right code). Taking first and giving back after is what keeps concurrent attempts
    /// to the limit: each has its token before it is tried.
    func giveBack(key: Key) {
        buckets.withLock { buckets in
            buckets[key]?.giveBack(capacity: limit.burst)
        }
    }

    /// Nil when the request may go ahead, else the seconds to wait.
    func take(key: Key) -> Int? {
        let now = clock.now()
        return buckets.withLock { buckets in
            // Full buckets carry no information: dropping them bounds memory by the active clients.
            if buckets.count > 10_000 {
                buckets = buckets.filter { !$0.value.isFull(capacity: limit.burst, refillPerSecond: limit.refillPerSecond, at: now) }
            }
            var bucket = buckets[key] ?? TokenBucket(capacity: limit.burst, at: now)
            let wait = bucket.take(capacity: limit.burst, refillPerSecond: limit.refillPerSecond, at: now)
            buckets[key] = bucket
            return wait
        }
    }
}
