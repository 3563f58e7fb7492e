import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The web dashboard's sessions (`DashboardSession`, `dashboard_sessions`): one a signed-in
/// browser, holding its device's credential sealed by the dashboard. Not a family's change: no
/// record, no change log; the rows go with their device and their family.
public struct PostgresDashboardSessionStore: Sendable {
    let database: Database
    let clock: any WallClock
    let logger: Logger

    public init(database: Database, clock: any WallClock, logger: Logger) {
        self.database = database
        self.clock = clock
        self.logger = logger
    }

    /// Begins `session` for `deviceID`, whose credential `sealed` holds.
    public func begin(_ session: DashboardSession, deviceID: UUID, sealed: [UInt8]) async throws {
        let now = clock.now()
        try await database.rows(
            """
            INSERT INTO dashboard_sessions (family_id, session_id, device_id, token_hash, sealed_credential, created_at, last_seen_at)
            VALUES (\(session.familyID), \(session.sessionID), \(deviceID), \(ByteBuffer(bytes: session.hash)), \(ByteBuffer(bytes: sealed)), \(now), \(now))
            """,
            logger: logger
        )
    }

    /// The sealed credential of `session` while it is live, its use noted; nil for a session that
    /// is unknown, another's token, or past its lifetimes (then ended).
    public func resume(_ session: DashboardSession) async throws -> [UInt8]? {
        let now = clock.now()
        let rows = try await database.rows(
            """
            SELECT token_hash, sealed_credential, created_at, last_seen_at FROM dashboard_sessions
            WHERE family_id = \(session.familyID) AND session_id = \(session.sessionID)
            """,
            logger: logger
        )
        guard let (hash, sealed, createdAt, lastSeenAt) = try rows.decode((ByteBuffer, ByteBuffer, Date, Date).self).first,
            constantTimeEquals(hash.readableBytesView, session.hash)
        else { return nil }
        guard DashboardSession.isLive(createdAt: createdAt, lastSeenAt: lastSeenAt, at: now) else {
            try await end(session)
            return nil
        }
        if DashboardSession.needsTouch(lastSeenAt: lastSeenAt, at: now) {
            try await database.rows(
                "UPDATE dashboard_sessions SET last_seen_at = \(now) WHERE family_id = \(session.familyID) AND session_id = \(session.sessionID)",
                logger: logger
            )
        }
        return Array(sealed.readableBytesView)
    }

    /// Ends `session` (signing out, or its device gone).
    public func end(_ session: DashboardSession) async throws {
        try await database.rows(
            "DELETE FROM dashboard_sessions WHERE family_id = \(session.familyID) AND session_id = \(session.sessionID)", logger: logger
        )
    }

    /// Removes the sessions past their lifetimes (the hourly job); returns how many.
    public func purgeEnded() async throws -> Int {
        let now = clock.now()
        let idle = now.addingTimeInterval(-DashboardSession.idleLifetime), old = now.addingTimeInterval(-DashboardSession.absoluteLifetime)
        let rows = try await database.rows(
            "DELETE FROM dashboard_sessions WHERE last_seen_at <= \(idle) OR created_at <= \(old) RETURNING 1", logger: logger
        )
        return try rows.decode(Int.self).count
    }
}
