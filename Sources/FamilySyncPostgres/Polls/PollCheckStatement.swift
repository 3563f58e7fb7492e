import Foundation
import PostgresNIO

/// A poll's read (`PostgresPollStore.check`), prepared once per connection: every poll runs it
/// when it arrives and each time it is woken, and PostgreSQL planned its five subqueries anew
/// each time. Every subquery names the family by value ($1), not by `d.family_id`: Citus routes
/// a statement to one shard only when it sees every table filtered by a value (docs/operations.md,
/// "What the SQL keeps for Citus", rule 2). Correlated, it ran on all 32 shards, and with one
/// worker down every family's polls failed. The push hold's UPDATE is a statement of its own
/// (`PushHoldStatement`): as a CTE of this one, Citus sent the whole to the worker, which refused
/// it ("cannot execute a distributed query from a query on a shard").
struct PollCheckStatement: RowStatement {
    /// Named here: PostgresNIO's default, `String(reflecting:)`, is worked out on every run.
    static let name = "familysync_poll_check"
    static let sql = """
        SELECT d.role, d.status, d.changed_seq, f.change_seq, f.horizon_seq,
            ARRAY(SELECT z.zone_name FROM zones z WHERE z.family_id = $1 AND z.changed_seq > $3 ORDER BY z.changed_seq, z.zone_name),
            ARRAY(SELECT coalesce(z.child_device_id::text, '') FROM zones z WHERE z.family_id = $1 AND z.changed_seq > $3 ORDER BY z.changed_seq, z.zone_name),
            ARRAY(SELECT z.deleted_at IS NOT NULL FROM zones z WHERE z.family_id = $1 AND z.changed_seq > $3 ORDER BY z.changed_seq, z.zone_name),
            ARRAY(SELECT coalesce(z.member_id::text, '') FROM zones z WHERE z.family_id = $1 AND z.changed_seq > $3 ORDER BY z.changed_seq, z.zone_name),
            d.member_id, d.tracked,
            ARRAY(SELECT o.device_id FROM devices o WHERE o.family_id = $1 AND o.changed_seq > $3 ORDER BY o.changed_seq, o.device_id)
        FROM devices d JOIN families f ON f.family_id = d.family_id
        WHERE d.family_id = $1 AND f.family_id = $1 AND d.device_id = $2
        """
    let familyID: UUID
    let deviceID: UUID
    /// Changes after this sequence are reported.
    let since: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(familyID)
        bindings.append(deviceID)
        bindings.append(since)
        return bindings
    }
}
