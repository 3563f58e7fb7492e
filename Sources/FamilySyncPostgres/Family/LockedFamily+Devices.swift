import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A family's devices as the change log changes them: each change numbered and published, so
/// that polls wake and every instance's credential cache drops what it knew of the device.
extension LockedFamily {
    /// A device's status, role or name changed: stamps it with a number of the family's sequence
    /// and tells the polls that can see it.
    public func deviceChanged(_ deviceID: UUID) async throws {
        let sequence = try await advance()
        try await connection.rows("UPDATE devices SET changed_seq = \(sequence) WHERE family_id = \(id) AND device_id = \(deviceID)", logger: logger)
        try await publish([.device(deviceID, of: id)])
    }
}

extension LockedFamily {
    /// A new device with its credential's hash: a numbered change, so parents' polls wake to show
    /// it (in the family's creating transaction, change 1).
    @discardableResult
    func insertDevice(_ device: Device, credentialHash: [UInt8]) async throws -> Device {
        let sequence = try await advance()
        try await connection.rows(
            """
            INSERT INTO devices (family_id, device_id, role, name, child_name, platform, time_zone, status, credential_hash, registered_at, last_seen_at, last_sync_at,
                                 changed_seq, member_id, tracked)
            VALUES (\(id), \(device.id), \(device.role.rawValue), \(device.name), \(device.childName), \(device.platform.rawValue),
                    \(device.timeZone), \(device.status.rawValue), \(ByteBuffer(bytes: credentialHash)), \(device.registeredAt), \(device.lastSeenAt), \(device.lastSyncAt),
                    \(sequence), \(device.memberID), \(device.tracked))
            """,
            logger: logger
        )
        try await publish([.device(device.id, of: id)])
        return device
    }

    /// A new credential's hash for a device that is not revoked; the old one stops working at
    /// once here and on every instance as soon as the notice reaches it. Not a numbered change:
    /// nothing a poll answers or a device fetches shows it.
    func rotateCredential(of deviceID: UUID, to hash: [UInt8]) async throws {
        let rows = try await connection.rows(
            """
            UPDATE devices SET credential_hash = \(ByteBuffer(bytes: hash))
            WHERE family_id = \(id) AND device_id = \(deviceID) AND status <> 'revoked'
            RETURNING device_id
            """,
            logger: logger
        )
        guard !rows.isEmpty else {
            throw FamilySyncError(.authenticationRequired, "This device's credential is no longer valid.")
        }
        try await announce([.device(deviceID, of: id)])
    }

    /// Revoked: the credential erased, nothing pushed to it any more (§12), and its held polls
    /// answer 401 at once.
    func revokeDevice(_ deviceID: UUID) async throws {
        try await connection.rows(
            "UPDATE devices SET status = 'revoked', credential_hash = NULL WHERE family_id = \(id) AND device_id = \(deviceID)", logger: logger
        )
        try await connection.rows("DELETE FROM device_push_tokens WHERE family_id = \(id) AND device_id = \(deviceID)", logger: logger)
        try await deviceChanged(deviceID)
    }

    /// A device of the family, its row locked; `NOT_FOUND` otherwise.
    func lockedDevice(_ deviceID: UUID) async throws -> Device {
        let rows = try await connection.rows("\(unescaped: DeviceRow.select) WHERE family_id = \(id) AND device_id = \(deviceID) FOR UPDATE", logger: logger)
        guard let device = try rows.map(DeviceRow.decode).first else {
            throw FamilySyncError.notFound("No such device.")
        }
        return device
    }

    /// A confirmed device joins its member and is active: its member's zone, when the member was
    /// there before, shows the change (`touchingMemberZone`).
    func activateDevice(_ deviceID: UUID, joining memberID: UUID, touchingMemberZone: Bool) async throws {
        try await connection.rows(
            "UPDATE devices SET status = 'active', member_id = \(memberID) WHERE family_id = \(id) AND device_id = \(deviceID)", logger: logger
        )
        if touchingMemberZone { try await touchZone(Member.zoneName(of: memberID)) }
        try await deviceChanged(deviceID)
    }

    /// The device moved from one member to another: both members' zones show it.
    func moveDevice(_ deviceID: UUID, from previous: UUID, to member: Member) async throws {
        try await connection.rows("UPDATE devices SET member_id = \(member.id) WHERE family_id = \(id) AND device_id = \(deviceID)", logger: logger)
        try await deviceChanged(deviceID)
        try await touchZone(member.zoneName)
        try await touchZone(Member.zoneName(of: previous))
    }

    /// What a device's own settings say now (its names, time zone, whether it is tracked).
    func updateDevice(_ device: Device) async throws {
        try await connection.rows(
            """
            UPDATE devices SET name = \(device.name), child_name = \(device.childName), time_zone = \(device.timeZone), tracked = \(device.tracked)
            WHERE family_id = \(id) AND device_id = \(device.id)
            """,
            logger: logger
        )
        try await deviceChanged(device.id)
    }
}
