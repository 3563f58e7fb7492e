import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A device's idempotency keys and the answers kept with them (PROTOCOL §1.2.1). The key itself
/// is written by the change log with the request's write (`IdempotencyClaim`); here it is read,
/// and its answer kept once it has gone out.
public struct PostgresIdempotencyKeys: Sendable {
    let database: Database
    let logger: Logger

    public init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// What the device's key holds, if anything.
    public func stored(familyID: UUID, deviceID: UUID, key: String) async throws -> IdempotencyKey.Stored? {
        let rows = try await database.rows(
            """
            SELECT request_hash, created_at, status, content_type, body FROM idempotency_keys
            WHERE family_id = \(familyID) AND device_id = \(deviceID) AND idempotency_key = \(key)
            """,
            logger: logger
        )
        guard let (hash, created, status, contentType, body) = try rows.decode((ByteBuffer, Date, Int?, String?, ByteBuffer?).self).first else { return nil }
        let answer = status.map { IdempotencyKey.Answer(status: $0, contentType: contentType, body: body.map { Array($0.readableBytesView) } ?? []) }
        return IdempotencyKey.Stored(requestHash: Array(hash.readableBytesView), createdAt: created, answer: answer)
    }

    /// Keeps the answer with the key: into the row the request's write made, or a new row for a
    /// request that wrote nothing (a refusal). Never over another request's key or a kept answer.
    public func keep(_ answer: IdempotencyKey.Answer, for claim: IdempotencyClaim) async throws {
        let expired = claim.now.addingTimeInterval(-IdempotencyKey.lifetime)
        try await database.rows(
            """
            INSERT INTO idempotency_keys (family_id, device_id, idempotency_key, request_hash, request_path, created_at, status, content_type, body)
            VALUES (\(claim.familyID), \(claim.deviceID), \(claim.key), \(ByteBuffer(bytes: claim.requestHash)), \(claim.requestPath), \(claim.now),
                    \(answer.status), \(answer.contentType), \(ByteBuffer(bytes: answer.body)))
            ON CONFLICT (family_id, device_id, idempotency_key) DO UPDATE SET
                request_hash = EXCLUDED.request_hash, request_path = EXCLUDED.request_path, created_at = EXCLUDED.created_at,
                status = EXCLUDED.status, content_type = EXCLUDED.content_type, body = EXCLUDED.body
            WHERE (idempotency_keys.status IS NULL AND idempotency_keys.request_hash = EXCLUDED.request_hash)
               OR idempotency_keys.created_at <= \(expired)
            """,
            logger: logger
        )
    }

    /// Removes the keys past their lifetime (every family's: the purge job's).
    @discardableResult
    public func purge(before cutoff: Date) async throws -> Int {
        try await database.rows("DELETE FROM idempotency_keys WHERE created_at <= \(cutoff) RETURNING 1", logger: logger).count
    }
}
