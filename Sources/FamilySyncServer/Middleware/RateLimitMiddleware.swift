import FamilySyncCore
import Foundation
import Hummingbird
import Synchronization

/// Per client address limits for the unauthenticated endpoints (family creation, pairing accept):
/// a token bucket each, in memory of this instance. Exceeded → `429 THROTTLED` with `Retry-After`.
/// Behind a proxy the address is the one it forwards, if it is trusted (`--trusted-proxies`).
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = FamilySyncRequestContext

    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let retryAfter = limiter.take(key: context.clientAddress ?? "unknown") {
            throw FamilySyncError(.throttled, "Too many requests from this address; retry in \(retryAfter) s.", retryAfter: retryAfter)
        }
        return try await next(request, context)
    }
}

/// The buckets of `RateLimitMiddleware`, shared by the routes it guards.
final class RateLimiter: Sendable {
    let limit: RateLimit
    let clock: any WallClock
    private let buckets = Mutex<[String: TokenBucket]>([:])

    init(limit: RateLimit, clock: any WallClock) {
        self.limit = limit
        self.clock = clock
    }

    /// Nil when a token is there to take, else the seconds to wait; takes nothing.
    func wait(key: String) -> Int? {
        let now = clock.now()
        return buckets.withLock { buckets in
            guard var bucket = buckets[key] else { return nil }
            return bucket.take(capacity: limit.burst, refillPerSecond: limit.refillPerSecond, at: now)
        }
    }

    /// Nil when the request may go ahead, else the seconds to wait.
    func take(key: String) -> Int? {
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
