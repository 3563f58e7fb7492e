import Foundation

/// The limit on checking a parent PIN online (PROTOCOL §11): 5 wrong PINs within 15 minutes, and
/// checks are refused for the next 15. A right PIN forgets the wrong ones. Pure: the store keeps
/// it per member.
///
/// A check is admitted first and settled once its PBKDF2 has run (outside any transaction, so
/// that hashing holds no database connection). Checks under way count against the allowance, so
/// that concurrent wrong PINs cannot get past it: with four wrong ones behind it, one more is
/// admitted and the next waits for it to settle. One that never settles (its server died) counts
/// as wrong after `pendingTimeout`.
public struct PINAttempts: Sendable, Equatable {
    public static let allowedFailures = 5
    public static let window: TimeInterval = 15 * 60
    public static let lockout: TimeInterval = 15 * 60
    public static let pendingTimeout: TimeInterval = 60

    /// Wrong PINs inside the window, oldest first.
    public var failures: [Date]
    /// When the checks under way were admitted.
    public var pending: [Date]
    public var lockedUntil: Date?

    public init(failures: [Date] = [], pending: [Date] = [], lockedUntil: Date? = nil) {
        self.failures = failures
        self.pending = pending
        self.lockedUntil = lockedUntil
    }

    /// Why a check is not admitted now: seconds to wait and the reason; nil when it is.
    public func refusal(at now: Date) -> (retryAfter: Int, reason: String)? {
        let current = normalized(at: now)
        if let lockedUntil = current.lockedUntil {
            let seconds = Self.seconds(lockedUntil.timeIntervalSince(now))
            return (seconds, "Too many wrong PINs; try again in \(seconds) seconds.")
        }
        if current.failures.count + current.pending.count >= Self.allowedFailures {
            return (1, "Other checks of this PIN are under way; try again in a second.")
        }
        return nil
    }

    /// With a check admitted at `now` (call after `refusal(at:)` said nil).
    public func admitting(at now: Date) -> PINAttempts {
        var next = normalized(at: now)
        next.pending.append(now)
        return next
    }

    /// After the check admitted at `admittedAt` turned out `valid` (or not), at `now`.
    public func settling(admittedAt: Date, valid: Bool, at now: Date) -> PINAttempts {
        var next = normalized(at: now)
        // Instants come back from the database to the microsecond.
        let index = next.pending.firstIndex { abs($0.timeIntervalSince(admittedAt)) < 0.001 }
        if let index { next.pending.remove(at: index) }
        if valid { return PINAttempts(pending: next.pending) }
        // Not under way any more: counted already (it timed out) or forgiven (a new PIN was set).
        guard index != nil else { return next }
        next.failures.append(now)
        return next.lockingIfDue(at: now)
    }

    /// Lockouts that ended dropped, checks under way too long counted as wrong, wrong ones past
    /// the window forgotten.
    func normalized(at now: Date) -> PINAttempts {
        var next = self
        if let lockedUntil, lockedUntil <= now { next.lockedUntil = nil }
        let expired = pending.filter { now.timeIntervalSince($0) >= Self.pendingTimeout }
        next.pending.removeAll { now.timeIntervalSince($0) >= Self.pendingTimeout }
        next.failures = (failures + expired).filter { now.timeIntervalSince($0) < Self.window }.sorted()
        return next.lockingIfDue(at: now)
    }

    /// The fifth wrong PIN in the window locks; the wrong ones that locked are spent (after the
    /// lockout they would all be outside the window anyway).
    func lockingIfDue(at now: Date) -> PINAttempts {
        guard failures.count >= Self.allowedFailures else { return self }
        return PINAttempts(pending: pending, lockedUntil: now.addingTimeInterval(Self.lockout))
    }

    static func seconds(_ interval: TimeInterval) -> Int { max(1, Int(interval.rounded(.up))) }
}
