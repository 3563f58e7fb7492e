import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A family's members as the change log changes them.
extension LockedFamily {
    /// A new member and its zone (§8), within the family's limit (`Member.checkRoom`).
    func createMember(_ memberID: UUID, name: String, role: DeviceRole, now: Date) async throws {
        let live = try await connection.rows(
            "SELECT count(*)::int FROM members WHERE family_id = \(id) AND deleted_at IS NULL", logger: logger
        ).decode(Int.self).first ?? 0
        try Member.checkRoom(liveMembers: live)
        try await connection.rows(
            "INSERT INTO members (family_id, member_id, name, role, created_at) VALUES (\(id), \(memberID), \(name), \(role.rawValue), \(now))",
            logger: logger
        )
        try await createMemberZone(for: memberID, now: now)
    }

    /// A live member of the family, its row locked; `NOT_FOUND` otherwise.
    func lockedMember(_ memberID: UUID) async throws -> Member {
        let rows = try await connection.rows(
            """
            \(membersOf: id)
            WHERE m.family_id = \(id) AND m.member_id = \(memberID) AND m.deleted_at IS NULL FOR UPDATE OF m
            """,
            logger: logger
        )
        guard let member = try rows.map(MemberRows.decode).first else { throw FamilySyncError.notFound("No such member.") }
        return member
    }

    /// The member renamed; those who see its zone learn of it there.
    func renameMember(_ member: Member, to name: String) async throws -> Member {
        try await connection.rows("UPDATE members SET name = \(name) WHERE family_id = \(id) AND member_id = \(member.id)", logger: logger)
        try await touchZone(member.zoneName)
        var renamed = member
        renamed.name = name
        return renamed
    }
}
