import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The purge of a family's tombstones past the horizon (§5.5): not a change anyone follows, so
/// nothing is numbered or notified; the family's horizon rises past what went, so that a token
/// that might have missed a purged deletion answers 410.
extension LockedFamily {
    /// Deletes at most `batchSize` record tombstones, and every zone tombstone, older than
    /// `cutoff`; returns how many went.
    func purgeTombstones(olderThan cutoff: Date, batchSize: Int) async throws -> Int {
        let records = try await connection.rows(
            """
            WITH doomed AS (
                SELECT zone_name, record_name FROM records
                WHERE family_id = \(id) AND deleted AND modified_at < \(cutoff) LIMIT \(batchSize)
            ), gone AS (
                DELETE FROM records r USING doomed d
                WHERE r.family_id = \(id) AND r.zone_name = d.zone_name AND r.record_name = d.record_name
                RETURNING r.seq
            )
            SELECT count(*)::int, coalesce(max(seq), 0) FROM gone
            """,
            logger: logger
        ).decode((Int, Int64).self).first { _ in true } ?? (0, Int64(0))
        let zones = try await connection.rows(
            """
            WITH gone AS (
                DELETE FROM zones WHERE family_id = \(id) AND deleted_at < \(cutoff) RETURNING changed_seq
            )
            SELECT count(*)::int, coalesce(max(changed_seq), 0) FROM gone
            """,
            logger: logger
        ).decode((Int, Int64).self).first { _ in true } ?? (0, Int64(0))
        try await connection.rows(
            "UPDATE families SET horizon_seq = greatest(horizon_seq, \(max(records.1, zones.1))) WHERE family_id = \(id)", logger: logger
        )
        return records.0 + zones.0
    }
}
