import Foundation
import PostgresNIO

/// A zone's page of changes with the family's position and the zone (`PostgresRecordStore.zoneChanges`),
/// prepared once per connection: every device's every fetch runs it, and PostgreSQL spent about
/// as long parsing and planning this join as running it (perf, "nothing new" fetches). Prepared,
/// it is planned once for all (a generic plan after five runs).
struct ZoneChangesStatement: RowStatement {
    static let sql = """
        SELECT f.change_seq, f.horizon_seq, z.zone_name IS NOT NULL AS zone_found, z.child_device_id, z.member_id, z.incarnation,
               z.changed_seq AS zone_seq, r.*
        FROM families f
        LEFT JOIN zones z ON z.family_id = f.family_id AND z.zone_name = $2 AND z.deleted_at IS NULL
        LEFT JOIN LATERAL (
            SELECT \(RecordRow.columns), seq FROM records
            WHERE family_id = $1 AND zone_name = $2 AND seq > $3 AND NOT ($4 AND deleted)
            ORDER BY seq LIMIT $5
        ) r ON z.zone_name IS NOT NULL
        WHERE f.family_id = $1
        ORDER BY r.seq
        """
    let familyID: UUID
    let zoneName: String
    /// Changes numbered after this one.
    let after: Int64
    /// A fetch without a token: live records only, no tombstones.
    let liveOnly: Bool
    let limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(familyID)
        bindings.append(zoneName)
        bindings.append(after)
        bindings.append(liveOnly)
        bindings.append(Int64(limit))
        return bindings
    }
}
