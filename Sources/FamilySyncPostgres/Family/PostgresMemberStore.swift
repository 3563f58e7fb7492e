import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Members (PROTOCOL §8): the people of a family, their devices and their zones. Every query is
/// bounded by the caller's family; a deleted member is found no more.
public struct PostgresMemberStore: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    /// `changeLog`: the one every store writes through (`ServerDependencies` makes it).
    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.database = changeLog.database
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    /// The family's live members, oldest first; or only `onlyMember`.
    public func list(familyID: UUID, onlyMember: UUID? = nil) async throws -> [Member] {
        try await database.rows(
            """
            \(membersOf: familyID)
            WHERE m.family_id = \(familyID) AND m.deleted_at IS NULL AND (\(onlyMember)::uuid IS NULL OR m.member_id = \(onlyMember))
            ORDER BY m.created_at, m.member_id
            """,
            logger: logger
        ).map(MemberRows.decode)
    }

    public func get(familyID: UUID, memberID: UUID) async throws -> Member {
        guard let member = try await list(familyID: familyID, onlyMember: memberID).first else { throw FamilySyncError.notFound("No such member.") }
        return member
    }

    /// A new member and its zone.
    public func create(familyID: UUID, name: String, role: DeviceRole, as writer: ChangeWriter) async throws -> Member {
        let now = clock.now()
        let memberID = UUID()
        try await changeLog.write(family: familyID, as: writer) { family in
            try await family.createMember(memberID, name: name, role: role, now: now)
        }
        return Member(id: memberID, familyID: familyID, name: name, role: role, deviceIDs: [], createdAt: now)
    }

    public func rename(familyID: UUID, memberID: UUID, name: String, as writer: ChangeWriter) async throws -> Member {
        try await changeLog.write(family: familyID, as: writer) { family in
            try await family.renameMember(try await family.lockedMember(memberID), to: name)
        }
    }

    /// Deletes a member (§15.3): the member, its devices (revoked ones too) and the devices
    /// invited into it that have joined no member yet (one invited into it and moved since is
    /// another member's), their zones and records and every row naming them, erased in this one
    /// transaction; acknowledged once committed.
    public func delete(familyID: UUID, memberID: UUID, by caller: AuthenticatedDevice, as writer: ChangeWriter) async throws {
        let logger = logger
        let now = clock.now()
        try await changeLog.write(family: familyID, as: writer) { family in
            let member = try await family.lockedMember(memberID)
            try Member.checkDelete(member, by: caller)
            let connection = family.connection
            let devices = try await connection.rows(
                """
                SELECT device_id FROM devices
                WHERE family_id = \(familyID) AND (member_id = \(memberID) OR member_id IS NULL AND device_id IN (
                    SELECT device_id FROM pairings WHERE family_id = \(familyID) AND member_id = \(memberID) AND device_id IS NOT NULL
                ))
                """,
                logger: logger
            ).map { try $0.decode(UUID.self) }
            for device in devices { try await family.revokeDevice(device) }
            // Who was erased is not kept: the entry names nobody.
            try await family.audit(.memberDeleted, subjectType: "member", at: now)
            try await family.erase(devices: devices, member: memberID)
        }
    }

    /// Moves a confirmed device to another member of its role. Its new member's zone shows up in
    /// its database changes; its old one is no longer visible to it.
    public func move(familyID: UUID, deviceID: UUID, to memberID: UUID, as writer: ChangeWriter) async throws -> Device {
        try await changeLog.write(family: familyID, as: writer) { family in
            var device = try await family.lockedDevice(deviceID)
            let member = try await family.lockedMember(memberID)
            guard let previous = try Member.checkMove(device, to: member) else { return device }
            try await family.moveDevice(deviceID, from: previous, to: member)
            device.memberID = memberID
            try await family.audit(.deviceMoved, member: memberID, subjectType: "device", subject: deviceID.lowercased, at: clock.now())
            return device
        }
    }

    /// Each date's view across the member's tracked devices (`MemberDay`): their stored daily
    /// summaries, read in one snapshot.
    public func days(familyID: UUID, memberID: UUID, dates: [String]) async throws -> [MemberDay] {
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            try await MemberRows.checkLive(memberID, of: familyID, on: connection, logger: logger)
            return try await MemberRows.days(familyID: familyID, memberID: memberID, dates: dates, on: connection, logger: logger)
        }
    }
}
