import FamilySyncCore
import Foundation
import PostgresNIO

extension LockedFamily {
    /// Writes the request's `Idempotency-Key` (if it has one not yet written) with this
    /// transaction's changes. A key past its lifetime is taken over; a live one means the same
    /// request committed first (`IdempotencyClaim.Taken`), and this transaction rolls back.
    func writeIdempotencyKey(_ claim: IdempotencyClaim) async throws {
        let expired = claim.now.addingTimeInterval(-IdempotencyKey.lifetime)
        let rows = try await connection.rows(
            """
            INSERT INTO idempotency_keys (family_id, device_id, idempotency_key, request_hash, request_path, created_at)
            VALUES (\(id), \(claim.deviceID), \(claim.key), \(ByteBuffer(bytes: claim.requestHash)), \(claim.requestPath), \(claim.now))
            ON CONFLICT (family_id, device_id, idempotency_key) DO UPDATE SET
                request_hash = EXCLUDED.request_hash, request_path = EXCLUDED.request_path, created_at = EXCLUDED.created_at,
                status = NULL, content_type = NULL, body = NULL
            WHERE idempotency_keys.created_at <= \(expired)
            RETURNING 1
            """,
            logger: logger
        )
        guard !rows.isEmpty else { throw IdempotencyClaim.Taken() }
    }
}
