import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The family's audit log (§15.4), written in the transaction of the change it records, so that
/// a change and its entry commit or roll back together.
extension LockedFamily {
    /// Records `entries`, made by the transaction's actor (its `ChangeWriter`'s: the request's
    /// device, or the server) at `time`. An entry that names no member concerns the member whose zone
    /// `zoneName` is (a member's zone, or a child device's), where one is given. Numbered from the
    /// family's own count of events, under its lock (the insert reads the count the update moves
    /// past; both see the statement's one snapshot). The rows come from `unnest` joined to the
    /// family's own row, and the joins name the family by value, the zone by "" when there is
    /// none (Citus plans `= NULL` beside them as a join it cannot route; docs/operations.md, Citus
    /// rules 6 and 8). (PostgresNIO encodes no array of optionals: an absent member or subject goes as "".)
    func audit(_ entries: [AuditEntry], at time: Date, inZone zoneName: String? = nil) async throws {
        guard !entries.isEmpty, !creating else { return }
        try await connection.rows(
            """
            WITH added AS (
                INSERT INTO audit_events (family_id, event_id, at, actor_role, actor_device_id, actor_member_id, address, action, member_id, subject_type, subject)
                SELECT f.family_id, f.audit_seq + e.n, \(time), \(actor.role.rawValue), \(actor.deviceID), \(actor.memberID), \(actor.address), e.action,
                       coalesce(nullif(e.member, '')::uuid, z.member_id, d.member_id), e.type, nullif(e.subject, '')
                FROM families f
                CROSS JOIN unnest(\(entries.map(\.action.rawValue))::text[], \(entries.map { $0.memberID?.lowercased ?? "" })::text[],
                                  \(entries.map(\.subjectType))::text[], \(entries.map { $0.subject ?? "" })::text[]) WITH ORDINALITY AS e(action, member, type, subject, n)
                LEFT JOIN zones z ON z.family_id = \(id) AND z.zone_name = \(zoneName ?? "")
                LEFT JOIN devices d ON d.family_id = \(id) AND d.device_id = z.child_device_id
                WHERE f.family_id = \(id)
            )
            UPDATE families SET audit_seq = audit_seq + \(entries.count) WHERE family_id = \(id)
            """,
            logger: logger
        )
    }

    /// As `audit(_:at:inZone:)`, one entry.
    func audit(_ action: AuditAction, member memberID: UUID? = nil, subjectType: String, subject: String? = nil, at time: Date) async throws {
        try await audit([AuditEntry(action, memberID: memberID, subjectType: subjectType, subject: subject)], at: time)
    }
}
