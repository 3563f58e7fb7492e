import Foundation
import PostgresNIO

/// A poll's read (`PostgresPollStore.check`), prepared once per connection: every poll runs it
/// when it arrives and each time it is woken, and PostgreSQL planned its five subqueries anew
/// each time.
struct PollCheckStatement: RowStatement {
    static let sql = """
        WITH hold AS (
            UPDATE device_push_tokens SET poll_held_until = $1
            WHERE $1::timestamptz IS NOT NULL AND family_id = $2 AND device_id = $3
            RETURNING 1
        )
        SELECT EXISTS (SELECT 1 FROM hold), d.role, d.status, d.changed_seq, f.change_seq, f.horizon_seq,
            ARRAY(SELECT z.zone_name FROM zones z WHERE z.family_id = d.family_id AND z.changed_seq > $4 ORDER BY z.changed_seq, z.zone_name),
            ARRAY(SELECT coalesce(z.child_device_id::text, '') FROM zones z WHERE z.family_id = d.family_id AND z.changed_seq > $4 ORDER BY z.changed_seq, z.zone_name),
            ARRAY(SELECT z.deleted_at IS NOT NULL FROM zones z WHERE z.family_id = d.family_id AND z.changed_seq > $4 ORDER BY z.changed_seq, z.zone_name),
            ARRAY(SELECT coalesce(z.member_id::text, '') FROM zones z WHERE z.family_id = d.family_id AND z.changed_seq > $4 ORDER BY z.changed_seq, z.zone_name),
            d.member_id, d.tracked,
            ARRAY(SELECT o.device_id FROM devices o WHERE o.family_id = d.family_id AND o.changed_seq > $4 ORDER BY o.changed_seq, o.device_id)
        FROM devices d JOIN families f ON f.family_id = d.family_id
        WHERE d.family_id = $2 AND d.device_id = $3
        """
    /// Marks the caller's push registration as held by this poll until then (§12); nil: no mark.
    let holdUntil: Date?
    let familyID: UUID
    let deviceID: UUID
    /// Changes after this sequence are reported.
    let since: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(holdUntil)
        bindings.append(familyID)
        bindings.append(deviceID)
        bindings.append(since)
        return bindings
    }
}
