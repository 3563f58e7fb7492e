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
