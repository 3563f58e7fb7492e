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

    /// `outbox`: push on (§12), the outbox rows of each change written with it.
    public init(database: Database, clock: any WallClock, logger: Logger, outbox: PushOutbox? = nil, knownDevices: KnownDevices? = nil) {
        self.database = database
        self.changeLog = ChangeLog(database: database, logger: logger, outbox: outbox, knownDevices: knownDevices)
        self.clock = clock
        self.logger = logger
    }

    static let select = """
        SELECT m.member_id, m.family_id, m.name, m.role, m.created_at,
            ARRAY(SELECT d.device_id FROM devices d WHERE d.family_id = m.family_id AND d.member_id = m.member_id ORDER BY d.registered_at, d.device_id) AS device_ids
        FROM members m
        """

    static func decode(_ row: PostgresRow) throws -> Member {
        let cells = row.makeRandomAccess()
        return Member(
            id: try cells["member_id"].decode(UUID.self), familyID: try cells["family_id"].decode(UUID.self), name: try cells["name"].decode(String.self),
            role: DeviceRole(rawValue: try cells["role"].decode(String.self)) ?? .child, deviceIDs: try cells["device_ids"].decode([UUID].self),
            createdAt: try cells["created_at"].decode(Date.self)
        )
    }

    /// The family's live members, oldest first; or only `onlyMember`.
    public func list(familyID: UUID, onlyMember: UUID? = nil) async throws -> [Member] {
        try await database.rows(
            """
            \(unescaped: Self.select)
            WHERE m.family_id = \(familyID) AND m.deleted_at IS NULL AND (\(onlyMember)::uuid IS NULL OR m.member_id = \(onlyMember))
            ORDER BY m.created_at, m.member_id
            """,
            logger: logger
        ).map(Self.decode)
    }

    public func get(familyID: UUID, memberID: UUID) async throws -> Member {
        guard let member = try await list(familyID: familyID, onlyMember: memberID).first else { throw FamilySyncError.notFound("No such member.") }
        return member
    }

    /// A new member and its zone.
    public func create(familyID: UUID, name: String, role: DeviceRole) async throws -> Member {
        let logger = logger
        let now = clock.now()
        let memberID = UUID()
        try await changeLog.write(family: familyID) { family in
            try await Self.create(memberID, name: name, role: role, now: now, in: family, logger: logger)
        }
        return Member(id: memberID, familyID: familyID, name: name, role: role, deviceIDs: [], createdAt: now)
    }

    public func rename(familyID: UUID, memberID: UUID, name: String) async throws -> Member {
        let logger = logger
        return try await changeLog.write(family: familyID) { family in
            var member = try await Self.locked(memberID, in: family, logger: logger)
            try await family.connection.rows("UPDATE members SET name = \(name) WHERE family_id = \(familyID) AND member_id = \(memberID)", logger: logger)
            member.name = name
            // Those who see the member's zone learn of it there.
            try await family.touchZone(member.zoneName)
            return member
        }
    }

    /// Deletes a member: its devices are revoked (as `DELETE /v1/devices/{id}` does), invitations
    /// into it are revoked, and its zone is deleted. Its devices' own zones and history stay.
    public func delete(familyID: UUID, memberID: UUID, by caller: AuthenticatedDevice) async throws {
        let logger = logger
        let now = clock.now()
        try await changeLog.write(family: familyID) { family in
            let member = try await Self.locked(memberID, in: family, logger: logger)
            try Member.checkDelete(member, by: caller)
            let connection = family.connection
            for device in try await connection.rows(
                "SELECT device_id FROM devices WHERE family_id = \(familyID) AND member_id = \(memberID) AND status <> 'revoked' FOR UPDATE", logger: logger
            ).map({ try $0.decode(UUID.self) }) {
                try await PostgresDeviceStore.revoke(device, in: family, logger: logger)
            }
            let invited = try await connection.rows(
                """
                UPDATE pairings SET status = 'revoked', decided_at = \(now)
                WHERE family_id = \(familyID) AND member_id = \(memberID) AND status IN ('pending', 'accepted')
                RETURNING device_id
                """,
                logger: logger
            ).map { try $0.decode(UUID?.self) }
            for case let device? in invited { try await PostgresDeviceStore.revoke(device, in: family, logger: logger) }
            try await connection.rows("UPDATE members SET deleted_at = \(now) WHERE family_id = \(familyID) AND member_id = \(memberID)", logger: logger)
            try await family.tombstoneZone(member.zoneName, now: now)
        }
    }

    /// Moves a confirmed device to another member of its role. Its new member's zone shows up in
    /// its database changes; its old one is no longer visible to it.
    public func move(familyID: UUID, deviceID: UUID, to memberID: UUID) async throws -> Device {
        let logger = logger
        return try await changeLog.write(family: familyID) { family in
            var device = try await PostgresDeviceStore.lockedDevice(familyID: familyID, deviceID: deviceID, on: family.connection, logger: logger)
            let member = try await Self.locked(memberID, in: family, logger: logger)
            guard device.status != .revoked else { throw FamilySyncError(.conflict, "The device is revoked.") }
            guard let previous = device.memberID else {
                throw FamilySyncError(.conflict, "The device awaits a parent's confirmation; it joins a member when confirmed.")
            }
            try Member.checkMove(device: device.role, to: member)
            guard previous != memberID else { return device }
            try await family.connection.rows(
                "UPDATE devices SET member_id = \(memberID) WHERE family_id = \(familyID) AND device_id = \(deviceID)", logger: logger
            )
            device.memberID = memberID
            try await family.deviceChanged(deviceID)
            try await family.touchZone(member.zoneName)
            try await family.touchZone(Member.zoneName(of: previous))
            return device
        }
    }

    /// Each date's view across the member's tracked devices (`MemberDay`): their stored daily
    /// summaries, read in one snapshot.
    public func days(familyID: UUID, memberID: UUID, dates: [String]) async throws -> [MemberDay] {
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            try await Self.checkLive(memberID, of: familyID, on: connection, logger: logger)
            return try await Self.days(familyID: familyID, memberID: memberID, dates: dates, on: connection, logger: logger)
        }
    }

    /// The member's days (every device of the member that has a zone of its own: it is, or was,
    /// tracked), on a connection whose transaction the caller runs.
    static func days(familyID: UUID, memberID: UUID, dates: [String], on connection: PostgresConnection, logger: Logger) async throws -> [MemberDay] {
        let rows = try await connection.rows(
            """
            SELECT d.device_id, d.platform, r.fields
            FROM devices d
            JOIN zones z ON z.family_id = d.family_id AND z.child_device_id = d.device_id AND z.deleted_at IS NULL
            LEFT JOIN records r ON r.family_id = z.family_id AND r.zone_name = z.zone_name AND r.record_type = 'DailySummary'
                AND r.record_name = ANY(\(dates.map(DailySummary.recordName))) AND NOT r.deleted
            WHERE d.family_id = \(familyID) AND d.member_id = \(memberID)
            ORDER BY d.registered_at, d.device_id
            """,
            logger: logger
        )
        var devices: [(id: UUID, platform: DevicePlatform)] = []
        var summaries: [UUID: [String: DailySummary]] = [:]
        for (id, platform, fields) in try rows.decode((UUID, String, RecordFields?).self) {
            if !devices.contains(where: { $0.id == id }) { devices.append((id, DevicePlatform(rawValue: platform) ?? .other)) }
            if let summary = fields.flatMap({ DailySummary(fields: $0.value) }) { summaries[id, default: [:]][summary.date] = summary }
        }
        return dates.map { date in
            MemberDay(date: date, devices: devices.map { MemberDay.DeviceDay(deviceID: $0.id, platform: $0.platform, summary: summaries[$0.id]?[date]) })
        }
    }

    // MARK: - Within a family's transaction

    /// `NOT_FOUND` unless the member is a live one of the family.
    static func checkLive(_ memberID: UUID, of familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        let exists = try await connection.rows(
            "SELECT 1 FROM members WHERE family_id = \(familyID) AND member_id = \(memberID) AND deleted_at IS NULL", logger: logger
        )
        guard !exists.isEmpty else { throw FamilySyncError.notFound("No such member.") }
    }

    /// A new member and its zone, in `family`'s transaction; a family has at most
    /// `Limits.maximumMembers` live ones.
    static func create(_ memberID: UUID, name: String, role: DeviceRole, now: Date, in family: LockedFamily, logger: Logger) async throws {
        let live = try await family.connection.rows(
            "SELECT count(*)::int FROM members WHERE family_id = \(family.id) AND deleted_at IS NULL", logger: logger
        ).decode(Int.self).first { _ in true } ?? 0
        guard live < Limits.maximumMembers else {
            throw FamilySyncError.limitExceeded("A family has at most \(Limits.maximumMembers) members; delete one first.")
        }
        try await family.connection.rows(
            "INSERT INTO members (family_id, member_id, name, role, created_at) VALUES (\(family.id), \(memberID), \(name), \(role.rawValue), \(now))",
            logger: logger
        )
        try await family.createMemberZone(for: memberID, now: now)
    }

    /// A family's first member, before the family has a change log to write through (its creation).
    static func insert(_ memberID: UUID, familyID: UUID, name: String, role: DeviceRole, now: Date, sequence: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.rows(
            "INSERT INTO members (family_id, member_id, name, role, created_at) VALUES (\(familyID), \(memberID), \(name), \(role.rawValue), \(now))",
            logger: logger
        )
        try await connection.rows(
            """
            INSERT INTO zones (family_id, zone_name, child_device_id, member_id, created_at, changed_seq)
            VALUES (\(familyID), \(Member.zoneName(of: memberID)), NULL, \(memberID), \(now), \(sequence))
            """,
            logger: logger
        )
    }

    /// A live member of the family, its row locked; `NOT_FOUND` otherwise.
    static func locked(_ memberID: UUID, in family: LockedFamily, logger: Logger) async throws -> Member {
        let rows = try await family.connection.rows(
            """
            \(unescaped: select)
            WHERE m.family_id = \(family.id) AND m.member_id = \(memberID) AND m.deleted_at IS NULL FOR UPDATE OF m
            """,
            logger: logger
        )
        guard let member = try rows.map(decode).first else { throw FamilySyncError.notFound("No such member.") }
        return member
    }
}
