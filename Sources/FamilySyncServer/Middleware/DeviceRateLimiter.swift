import FamilySyncCore
import Foundation

/// Each device's budget of requests (PROTOCOL §1.2), in memory of this instance, taken by
/// `AuthenticationMiddleware` as soon as the credential is known, before the request takes a
/// family's turn or a database connection. The buckets are spread over shards by the device's
/// id, so that two loops' requests rarely wait on one lock.
package final class DeviceRateLimiter: Sendable {
    private let shards: [RateLimiter<UUID>]

    package init(limit: RateLimit, clock: any WallClock, shards: Int = 16) {
        self.shards = (0..<shards).map { _ in RateLimiter(limit: limit, clock: clock) }
    }

    /// Nil when the request may go ahead, else the seconds to wait.
    func take(_ device: UUID) -> Int? {
        shards[Int(device.uuid.15) % shards.count].take(key: device)
    }
}
