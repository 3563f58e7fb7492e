import FamilySyncCore
import Foundation
import PostgresNIO

/// A zone's page of changes with the family's position and the zone (`PostgresRecordReads.zoneChanges`),
/// prepared once per connection: every device's every fetch runs it, and PostgreSQL spent about
/// as long parsing and planning this join as running it (perf, "nothing new" fetches). Prepared,
/// it is planned once for all (a generic plan after five runs).
struct ZoneChangesStatement: RowStatement {
    /// Named here: PostgresNIO's default, `String(reflecting:)`, is worked out on every run.
    static let name = "familysync_zone_changes"
    static let sql = """
        SELECT f.change_seq, f.horizon_seq, z.zone_name IS NOT NULL AS zone_found, z.child_device_id, z.member_id, z.incarnation,
               z.changed_seq AS zone_seq,
               r.record_name, r.record_type, r.change_tag, r.deleted, r.created_at, r.created_by, r.modified_at, r.modified_by,
               r.modified_role, r.client_modified_at, r.fields, r.seq
        FROM families f
        LEFT JOIN zones z ON z.family_id = f.family_id AND z.zone_name = $2 AND z.deleted_at IS NULL
        LEFT JOIN LATERAL (
            SELECT record_name, record_type, change_tag, deleted, created_at, created_by, modified_at, modified_by, modified_role,
                   client_modified_at, fields, seq
            FROM records
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

    /// Where `r.seq` is; a row's record is in the columns before it, from `r.record_name` (7) on.
    static let sequenceColumn = 18

    /// The record of a row that has one, its fields left as JSON text.
    static func record(_ cells: PostgresRandomAccessRow) throws -> FeedRecord<ByteBuffer> {
        FeedRecord(
            recordName: try cells[7].decode(String.self), recordType: try cells[8].decode(String.self),
            changeTag: try cells[9].decode(String.self), deleted: try cells[10].decode(Bool.self),
            createdAt: try cells[11].decode(Date.self), createdBy: try cells[12].decode(UUID.self),
            modifiedAt: try cells[13].decode(Date.self), modifiedBy: try cells[14].decode(UUID.self),
            modifiedRole: try RecordRow.writerRole(cells[15].decode(String.self)), clientModifiedAt: try cells[16].decode(Date.self),
            fieldsJSON: try cells[17].decode(JSONBText.self).text
        )
    }

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
