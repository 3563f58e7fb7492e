import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The write side of long polls (PROTOCOL §6): writers tell every server instance what changed
/// with `pg_notify` inside their transaction, so the notice is sent on commit and never for a
/// change that rolled back.
public enum ChangePublisher {
    /// The channel every instance LISTENs on.
    public static let channel = "familysync_changes"

    static func publish(_ notices: [ChangeNotice], on connection: PostgresConnection, logger: Logger) async throws {
        guard !notices.isEmpty else { return }
        let payloads = notices.map(\.payload)
        try await connection.query("SELECT pg_notify(\(channel), payload) FROM unnest(\(payloads)::text[]) AS payload", logger: logger)
    }

    /// A device's status, role or name changed (or it is new): stamps it with a number of the
    /// family's sequence and tells the polls that can see it. The family's row lock must already
    /// be held, as in every writer.
    static func deviceChanged(_ deviceID: UUID, of familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        let sequence = try await PostgresRecordStore.advance(familyID, by: 1, on: connection, logger: logger)
        try await connection.query(
            "UPDATE devices SET changed_seq = \(sequence) WHERE family_id = \(familyID) AND device_id = \(deviceID)", logger: logger
        )
        try await publish([.device(deviceID, of: familyID)], on: connection, logger: logger)
    }
}
