import Foundation

/// The time as the domain sees it. Injected everywhere an expiry or an interval is decided, so
/// tests move time instead of sleeping.
public protocol WallClock: Sendable {
    func now() -> Date
}

public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// The system's time running `rate` times faster from the instant it was made: a server whose
/// minutes pass in seconds, for a test that watches what happens after 15 minutes of silence
/// without waiting for them (`familysync serve --clock-rate`, hidden; never for production).
public struct ScaledWallClock: WallClock {
    public let rate: Double
    let origin: Date

    public init(rate: Double, origin: Date = Date()) {
        self.rate = rate
        self.origin = origin
    }

    public func now() -> Date { origin.addingTimeInterval(Date().timeIntervalSince(origin) * rate) }
}
