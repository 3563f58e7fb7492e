import Foundation

/// A token bucket: `capacity` requests at once, refilled at `refillPerSecond`. Pure: the caller
/// keeps the state and passes the time.
public struct TokenBucket: Sendable, Equatable {
    public var tokens: Double
    public var updatedAt: Date

    public init(capacity: Int, at now: Date) {
        self.tokens = Double(capacity)
        self.updatedAt = now
    }

    /// Takes one token if there is one. Otherwise returns the whole seconds until there will be.
    public mutating func take(capacity: Int, refillPerSecond: Double, at now: Date) -> Int? {
        let elapsed = max(0, now.timeIntervalSince(updatedAt))
        tokens = min(Double(capacity), tokens + elapsed * refillPerSecond)
        updatedAt = now
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return max(1, Int(((1 - tokens) / refillPerSecond).rounded(.up)))
    }

    /// Puts back a token taken for an attempt that turned out not to count (a right code).
    public mutating func giveBack(capacity: Int) {
        tokens = min(Double(capacity), tokens + 1)
    }

    /// Whether a bucket left alone this long is full again (and so need not be kept).
    public func isFull(capacity: Int, refillPerSecond: Double, at now: Date) -> Bool {
        tokens + max(0, now.timeIntervalSince(updatedAt)) * refillPerSecond >= Double(capacity)
    }
}
