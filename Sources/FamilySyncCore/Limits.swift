/// The limits of PROTOCOL §9 that the foundation enforces. Later capabilities add theirs here
/// so that one place says what a client may send.
public struct Limits: Sendable, Equatable {
    /// Largest request body accepted, checked before the body is read in full.
    public var maxBodyBytes: Int

    public static let defaultMaxBodyBytes = 4 * 1024 * 1024

    public init(maxBodyBytes: Int = Limits.defaultMaxBodyBytes) {
        self.maxBodyBytes = maxBodyBytes
    }
}

/// A rate limit: `burst` requests at once, then `perMinute` a minute.
public struct RateLimit: Sendable, Equatable {
    public var burst: Int
    public var perMinute: Int

    public init(burst: Int, perMinute: Int) {
        self.burst = burst
        self.perMinute = perMinute
    }

    public var refillPerSecond: Double { Double(perMinute) / 60 }

    /// Unauthenticated endpoints: enough for a family setting up several devices, not for guessing.
    public static let unauthenticatedDefault = RateLimit(burst: 20, perMinute: 20)
}
