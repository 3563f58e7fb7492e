import FamilySyncCore
import Foundation
import Hummingbird
import Synchronization

/// Per client address limits for the unauthenticated endpoints (family creation, pairing accept):
/// a token bucket each, in memory of this instance. Exceeded → `429 THROTTLED` with `Retry-After`.
/// Behind a proxy the address is the one it forwards, if it is trusted (`--trusted-proxies`); an
/// IPv6 client counts by its /64 (`AddressBlock`).
package struct RateLimitMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    let limiter: RateLimiter<String>

    package init(limiter: RateLimiter<String>) {
        self.limiter = limiter
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let retryAfter = limiter.take(key: context.addressKey) {
            throw FamilySyncError(.throttled, "Too many requests from this address; retry in \(retryAfter) s.", retryAfter: retryAfter)
        }
        return try await next(request, context)
    }
}
