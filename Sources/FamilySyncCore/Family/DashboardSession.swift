import Foundation

/// A browser signed in to the web dashboard (docs/dashboard.md): its own session, not the
/// browser's device credential. The cookie holds `fws1.<familyId>.<sessionId>.<secret>`, which no
/// `/v1` route takes; the server keeps SHA-256 of it and the device credential sealed, and the
/// session ends when it has been idle a week, when it is 30 days old, when the browser signs out
/// or when its device is revoked, whichever comes first.
public struct DashboardSession: Sendable, Equatable {
    public static let idleLifetime: TimeInterval = 7 * 86_400
    public static let absoluteLifetime: TimeInterval = 30 * 86_400
    /// How stale `lastSeenAt` may be before a request writes it again: a page is several requests,
    /// and the idle lifetime is days.
    public static let touchGranularity: TimeInterval = 3600

    public var familyID: UUID
    public var sessionID: UUID
    /// The whole string, set once in the browser's cookie.
    public var token: String

    public static func generate(familyID: UUID) -> DashboardSession {
        let sessionID = UUID()
        return DashboardSession(familyID: familyID, sessionID: sessionID, token: "fws1.\(familyID.lowercased).\(sessionID.lowercased).\(SecretToken.randomSecret())")
    }

    /// Nil for anything that is not a well-formed session token (a device credential among them).
    public init?(parsing token: String) {
        guard let (familyID, sessionID) = SecretToken.ids(of: token, prefix: "fws1") else { return nil }
        self.init(familyID: familyID, sessionID: sessionID, token: token)
    }

    init(familyID: UUID, sessionID: UUID, token: String) {
        self.familyID = familyID
        self.sessionID = sessionID
        self.token = token
    }

    public var hash: [UInt8] { SecretToken.hash(token) }

    /// Whether a session begun at `createdAt` and last used at `lastSeenAt` is still one at `now`.
    public static func isLive(createdAt: Date, lastSeenAt: Date, at now: Date) -> Bool {
        now.timeIntervalSince(createdAt) < absoluteLifetime && now.timeIntervalSince(lastSeenAt) < idleLifetime
    }

    /// Whether a request at `now` writes the session's `lastSeenAt` again.
    public static func needsTouch(lastSeenAt: Date, at now: Date) -> Bool {
        now.timeIntervalSince(lastSeenAt) >= touchGranularity
    }
}
