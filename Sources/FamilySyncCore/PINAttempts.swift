import Foundation

/// The limit on checking a parent PIN online (PROTOCOL §11): 5 wrong PINs within 15 minutes, and
/// checks are refused for the next 15. A right PIN forgets the wrong ones. Pure: the store keeps
/// it per member, under a row lock, so concurrent checks count one by one.
public struct PINAttempts: Sendable, Equatable {
    public static let allowedFailures = 5
    public static let window: TimeInterval = 15 * 60
    public static let lockout: TimeInterval = 15 * 60

    /// Wrong PINs still inside the window, oldest first.
    public var failures: [Date]
    public var lockedUntil: Date?

    public init(failures: [Date] = [], lockedUntil: Date? = nil) {
        self.failures = failures
        self.lockedUntil = lockedUntil
    }

    /// Seconds until checks are accepted again; nil when they are.
    public func retryAfter(at now: Date) -> Int? {
        guard let lockedUntil, lockedUntil > now else { return nil }
        return Int(lockedUntil.timeIntervalSince(now).rounded(.up))
    }

    /// After a check at `now` that was `valid`.
    public func recording(valid: Bool, at now: Date) -> PINAttempts {
        if valid { return PINAttempts() }
        let recent = failures.filter { now.timeIntervalSince($0) < Self.window } + [now]
        if recent.count >= Self.allowedFailures {
            // The wrong PINs that locked are spent: after the lockout they are all outside the window.
            return PINAttempts(failures: [], lockedUntil: now.addingTimeInterval(Self.lockout))
        }
        return PINAttempts(failures: recent, lockedUntil: nil)
    }
}
