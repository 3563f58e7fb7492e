import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The family's audit log and its read counts (PROTOCOL §15.4), read by parents. Its entries are
/// written by the change log with the changes they record (`LockedFamily.audit`); the read counts
/// here, outside any family lock (a read changes nothing of the family's), a batch at a time
/// (`ReadTally`).
public struct PostgresAuditStore: Sendable {
    let database: Database
    let logger: Logger

    public init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// The family's events, newest first, older than `before` (an event id) when given; with
    /// `member`, those concerning that member.
    public func events(familyID: UUID, member: UUID?, before: Int64?, limit: Int) async throws -> [AuditEvent] {
        try await database.rows(
            """
            SELECT event_id, at, actor_role, actor_device_id, actor_member_id, address, action, member_id, subject_type, subject
            FROM audit_events
            WHERE family_id = \(familyID) AND (\(member)::uuid IS NULL OR member_id = \(member)) AND event_id < \(before ?? Int64.max)
            ORDER BY event_id DESC LIMIT \(limit)
            """,
            logger: logger
        ).map(Self.decode)
    }

    static func decode(_ row: PostgresRow) throws -> AuditEvent {
        let (id, at, role, device, member, address, action, concerned, type, subject) =
            try row.decode((Int64, Date, String, UUID?, UUID?, String?, String, UUID?, String, String?).self)
        return AuditEvent(
            id: id, at: at, actor: AuditActor(role: WriterRole(rawValue: role) ?? .server, deviceID: device, memberID: member, address: address),
            entry: AuditEntry(AuditAction(rawValue: action) ?? .recordSaved, memberID: concerned, subjectType: type, subject: subject)
        )
    }

    /// Adds counted reads (`ReadTally`), every key in one statement; a reader erased meanwhile
    /// (its member or its whole family) is skipped, so that no count names it again. The readers
    /// are joined, not looked up by a subquery (Citus runs no subquery that refers to an `unnest`
    /// beside it), and the rows go in as sorted here, which a join does not keep by itself.
    public func addReads(_ counts: [AuditReadsKey: Int]) async throws {
        let entries = counts.sorted { "\($0.key.familyID)\($0.key.date)\($0.key.route)" < "\($1.key.familyID)\($1.key.date)\($1.key.route)" }
        try await database.rows(
            """
            INSERT INTO audit_reads (family_id, day, reader_member_id, route, reads)
            SELECT u.family, u.day::date, u.reader, u.route, u.reads
            FROM unnest(\(entries.map(\.key.familyID))::uuid[], \(entries.map(\.key.date))::text[], \(entries.map(\.key.readerMemberID))::uuid[],
                        \(entries.map(\.key.route))::text[], \(entries.map { Int64($0.value) })::bigint[]) WITH ORDINALITY AS u(family, day, reader, route, reads, n)
            JOIN members m ON m.family_id = u.family AND m.member_id = u.reader
            ORDER BY u.n
            ON CONFLICT (family_id, day, reader_member_id, route) DO UPDATE SET reads = audit_reads.reads + EXCLUDED.reads
            """,
            logger: logger
        )
    }

    /// The family's read counts of the days `from`…`to`, by day, member and route.
    public func reads(familyID: UUID, from: String, to: String) async throws -> [AuditReads] {
        try await database.rows(
            """
            SELECT day::text, reader_member_id, route, reads FROM audit_reads
            WHERE family_id = \(familyID) AND day BETWEEN \(from)::date AND \(to)::date
            ORDER BY day, reader_member_id, route
            """,
            logger: logger
        ).map { row in
            let (date, member, route, reads) = try row.decode((String, UUID, String, Int64).self)
            return AuditReads(date: date, readerMemberID: member, route: route, reads: Int(reads))
        }
    }
}
