import Logging
import PostgresNIO

/// After a restore from a backup older than the last write: every change token handed out before
/// is refused (410 `CHANGE_TOKEN_EXPIRED`), so each device fetches its zones whole (§5.5) instead
/// of trusting a token the restored history never reached.
///
/// Each family's sequence moves `gap` ahead and its horizon with it. A token from after the backup
/// lies between the restored sequence and the new horizon, so the horizon check refuses it now and
/// after any number of new writes (which number from above the horizon). Without the fence such a
/// token is refused only until new writes carry the sequence past it, and then it silently skips
/// the writes in between.
public enum ChangeTokenFence {
    /// More changes than any family makes between a backup and its restore.
    public static let gap: Int64 = 1 << 40

    /// Moves every family; returns how many there are.
    @discardableResult
    public static func raise(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let rows = try await connection.rows(
            "UPDATE families SET change_seq = change_seq + \(gap), horizon_seq = change_seq + \(gap) RETURNING family_id", logger: logger
        )
        var count = 0
        for _ in rows { count += 1 }
        return count
    }
}
