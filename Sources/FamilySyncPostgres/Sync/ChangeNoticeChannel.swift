import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The write side of long polls (PROTOCOL §6): writers tell every server instance what changed
/// with `pg_notify` inside their transaction, so the notice is sent on commit and never for a
/// change that rolled back.
public enum ChangeNoticeChannel {
    /// The channel every instance LISTENs on.
    public static let channel = "familysync_changes"

    static func publish(_ notices: [ChangeNotice], on connection: PostgresConnection, logger: Logger) async throws {
        guard !notices.isEmpty else { return }
        let payloads = notices.map(\.payload)
        try await connection.rows("SELECT pg_notify(\(channel), payload) FROM unnest(\(payloads)::text[]) AS payload", logger: logger)
    }
}
