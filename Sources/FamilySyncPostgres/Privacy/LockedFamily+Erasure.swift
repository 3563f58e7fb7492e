import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Erasure (PROTOCOL §15.3): devices, and a member with them, removed from every table in the
/// family's one transaction, so that it happens whole or not at all. What other rows say of them
/// goes too: records elsewhere that name them, their pairings and sign-ins, the audit events that
/// concern them (their own past actions stay, by an erased device). No zone tombstone can stay (a
/// child zone's name holds its device's id), so the family's change-token horizon moves past
/// now: every device fetches its zones whole at its next sync (410, §5.5), and drops what went.
extension LockedFamily {
    /// The id that stands for an erased device where a row must name a device (a record's
    /// `createdBy` and `modifiedBy`).
    public static let erasedDevice = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// Erases `devices` and, when given, `member` (whose devices they are). Returns how many rows
    /// of the family went, over every table.
    @discardableResult
    func erase(devices: [UUID], member: UUID?) async throws -> Int {
        let ids = devices.map(\.lowercased) + (member.map { [$0.lowercased] } ?? [])
        guard !ids.isEmpty else { return 0 }
        // Any of the ids in a row's text: a record's fields or name, a zone's name.
        let pattern = ids.joined(separator: "|")
        let memberZone = member.map(Member.zoneName(of:)) ?? ""
        var erased = 0
        func run(_ query: PostgresQuery) async throws {
            erased += try await connection.rows(query, logger: logger).decode(Int.self).first { _ in true } ?? 0
        }
        // Their zones, with every record in them.
        try await run(
            """
            WITH doomed AS (
                SELECT zone_name FROM zones
                WHERE family_id = \(id) AND (child_device_id = ANY(\(devices)) OR member_id = \(member) OR zone_name = \(memberZone))
            ), doomed_records AS (
                DELETE FROM records r USING doomed d WHERE r.family_id = \(id) AND r.zone_name = d.zone_name RETURNING 1
            ), doomed_zones AS (
                DELETE FROM zones WHERE family_id = \(id) AND zone_name IN (SELECT zone_name FROM doomed) RETURNING 1
            )
            SELECT (SELECT count(*) FROM doomed_records)::int + (SELECT count(*) FROM doomed_zones)::int
            """
        )
        // Records of other zones that name them (an alert of the device's upload, a command a
        // purged parent sent): gone, tombstones too.
        try await run(
            """
            WITH gone AS (
                DELETE FROM records WHERE family_id = \(id) AND (lower(fields::text) ~ \(pattern) OR lower(record_name) ~ \(pattern)) RETURNING 1
            )
            SELECT count(*)::int FROM gone
            """
        )
        // What they wrote that stays (a budget a purged parent's phone set) is by an erased device.
        try await run(
            """
            WITH changed AS (
                UPDATE records SET
                    created_by = CASE WHEN created_by = ANY(\(devices)) THEN \(Self.erasedDevice) ELSE created_by END,
                    modified_by = CASE WHEN modified_by = ANY(\(devices)) THEN \(Self.erasedDevice) ELSE modified_by END
                WHERE family_id = \(id) AND (created_by = ANY(\(devices)) OR modified_by = ANY(\(devices)))
                RETURNING 1
            )
            SELECT count(*)::int FROM changed
            """
        )
        // Their pairings (those they made, accepted or were invited by into the member), and the
        // sign-ins that named them; the audit events about those pairings go below.
        let pairings = try await connection.rows(
            """
            WITH doomed_pairings AS (
                DELETE FROM pairings
                WHERE family_id = \(id) AND (device_id = ANY(\(devices)) OR created_by = ANY(\(devices)) OR member_id = \(member))
                RETURNING pairing_id
            ), doomed_signins AS (
                DELETE FROM sign_ins WHERE family_id = \(id) AND (device_id = ANY(\(devices)) OR pairing_id IN (SELECT pairing_id FROM doomed_pairings)) RETURNING 1
            )
            SELECT pairing_id::text FROM doomed_pairings
            """,
            logger: logger
        ).map { try $0.decode(String.self) }
        erased += pairings.count
        // The audit log: what concerned them goes; what they did stays, by nobody named. Two
        // statements: one statement touching a row twice leaves which wins to PostgreSQL.
        try await run(
            """
            WITH concerned AS (
                DELETE FROM audit_events
                WHERE family_id = \(id) AND (member_id = \(member) OR lower(coalesce(subject, '')) ~ \(pattern) OR subject = ANY(\(pairings)))
                RETURNING 1
            )
            SELECT count(*)::int FROM concerned
            """
        )
        // A member's reads: only a member has them. Citus 13.2 prunes `reader_member_id = NULL`
        // to no shard at all and fails the statement ("could not find valid entry for shard 0";
        // inside the statement above, it reached a worker unrouted).
        if let member {
            try await run(
                """
                WITH reads AS (
                    DELETE FROM audit_reads WHERE family_id = \(id) AND reader_member_id = \(member) RETURNING 1
                )
                SELECT count(*)::int FROM reads
                """
            )
        }
        try await run(
            """
            WITH actors AS (
                UPDATE audit_events SET actor_device_id = NULL, actor_member_id = NULL, address = NULL
                WHERE family_id = \(id) AND (actor_device_id = ANY(\(devices)) OR actor_member_id = \(member))
                RETURNING 1
            )
            SELECT count(*)::int FROM actors
            """
        )
        // The rows keyed by them: the devices (their health, errors and push tokens go by
        // cascade), pushes to them or to others that name them (a zone, an alert), the member's
        // Apple accounts and their lookup, the member (its PIN's tries go by cascade).
        try await run(
            """
            WITH outbox AS (
                DELETE FROM push_outbox WHERE family_id = \(id) AND (device_id = ANY(\(devices)) OR lower(payload::text) ~ \(pattern)) RETURNING 1
            ), answers AS (
                -- Other devices' idempotency keys (§1.2.1) of requests on them or whose kept
                -- answers name them (sent again, such a request finds nothing to act on); their
                -- own keys go with the devices, by cascade.
                DELETE FROM idempotency_keys
                WHERE family_id = \(id) AND (lower(request_path) ~ \(pattern) OR lower(convert_from(coalesce(body, ''::bytea), 'UTF8')) ~ \(pattern))
                RETURNING 1
            ), gone AS (
                DELETE FROM devices WHERE family_id = \(id) AND device_id = ANY(\(devices)) RETURNING 1
            )
            SELECT (SELECT count(*) FROM outbox)::int + (SELECT count(*) FROM answers)::int + (SELECT count(*) FROM gone)::int
            """
        )
        if let member {
            try await run(
                """
                WITH accounts AS (
                    DELETE FROM apple_accounts WHERE family_id = \(id) AND member_id = \(member) RETURNING apple_sub
                ), subjects AS (
                    DELETE FROM apple_subjects WHERE family_id = \(id) AND apple_sub IN (SELECT apple_sub FROM accounts) RETURNING 1
                ), gone AS (
                    DELETE FROM members WHERE family_id = \(id) AND member_id = \(member) RETURNING 1
                )
                SELECT (SELECT count(*) FROM accounts)::int + (SELECT count(*) FROM subjects)::int + (SELECT count(*) FROM gone)::int
                """
            )
        }
        // Every token handed out before now is past the horizon: devices fetch whole, and what
        // went is not in what they fetch.
        let sequence = try await advance()
        try await connection.rows("UPDATE families SET horizon_seq = \(sequence) WHERE family_id = \(id)", logger: logger)
        try await publish([.family(id)])
        return erased
    }
}
