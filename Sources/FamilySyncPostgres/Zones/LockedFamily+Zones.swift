import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A family's zones: made, revived, touched and tombstoned, each a numbered change.
extension LockedFamily {
    /// A new zone a parent made, or one deleted before made again (a new incarnation); `EXISTS`
    /// for a live one. The new incarnation is drawn in `VALUES` and the conflict action takes
    /// `EXCLUDED`'s: Citus refuses a function that is not IMMUTABLE in `DO UPDATE SET`
    /// (`ImmutableUpsertTests`).
    public func createZone(_ name: String, now: Date) async throws -> Zone {
        let sequence = try await advance()
        let rows = try await connection.rows(
            """
            INSERT INTO zones (family_id, zone_name, child_device_id, created_at, incarnation, changed_seq)
            VALUES (\(id), \(name), NULL, \(now), gen_random_uuid(), \(sequence))
            ON CONFLICT (family_id, zone_name) DO UPDATE
                SET deleted_at = NULL, incarnation = EXCLUDED.incarnation, changed_seq = EXCLUDED.changed_seq, created_at = EXCLUDED.created_at
                WHERE zones.deleted_at IS NOT NULL
            RETURNING incarnation
            """,
            logger: logger
        )
        guard let incarnation = try rows.decode(UUID.self).first else {
            throw FamilySyncError(.exists, "A zone named '\(name)' exists.")
        }
        try await publish([.zone(name, of: id)])
        return Zone(name: name, childDeviceID: nil, incarnation: incarnation, changedSequence: sequence, deleted: false)
    }

    /// A confirmed child's own zone, `child-<deviceId>`, shared with it.
    public func createChildZone(for deviceID: UUID, now: Date) async throws {
        try await createDeviceZone(Device.zoneName(forChild: deviceID), for: deviceID, now: now)
    }

    /// A tracked device's own zone (`child-…`, `device-…`); nothing if it has one already, a new
    /// incarnation if it was purged.
    public func createDeviceZone(_ name: String, for deviceID: UUID, now: Date) async throws {
        try await createOwnedZone(name, device: deviceID, member: nil, now: now)
    }

    /// A member's zone `member-<memberId>` (§8), shared read-only with the member's devices.
    public func createMemberZone(for memberID: UUID, now: Date) async throws {
        try await createOwnedZone(Member.zoneName(of: memberID), device: nil, member: memberID, now: now)
    }

    /// A zone a device or a member owns: a change of the database only when it is new or revived
    /// (its new incarnation drawn in `VALUES`, as `createZone`'s).
    private func createOwnedZone(_ name: String, device: UUID?, member: UUID?, now: Date) async throws {
        let sequence = try await advance()
        let rows = try await connection.rows(
            """
            INSERT INTO zones (family_id, zone_name, child_device_id, member_id, created_at, incarnation, changed_seq)
            VALUES (\(id), \(name), \(device), \(member), \(now), gen_random_uuid(), \(sequence))
            ON CONFLICT (family_id, zone_name) DO UPDATE
                SET deleted_at = NULL, incarnation = EXCLUDED.incarnation, changed_seq = EXCLUDED.changed_seq, created_at = EXCLUDED.created_at
                WHERE zones.deleted_at IS NOT NULL
            RETURNING zone_name
            """,
            logger: logger
        )
        if !rows.isEmpty { try await publish([.zone(name, of: id)]) }
    }

    /// Shows a zone again in the database change feeds of those who see it (a device moved into
    /// its member, §8): it is stamped with a new number of the family's sequence.
    public func touchZone(_ name: String) async throws {
        let sequence = try await advance()
        try await connection.rows("UPDATE zones SET changed_seq = \(sequence) WHERE family_id = \(id) AND zone_name = \(name)", logger: logger)
        try await publish([.zone(name, of: id)])
    }

    /// Deletes a zone's records; the zone stays as a tombstone for the database change feed.
    public func tombstoneZone(_ name: String, now: Date) async throws {
        let sequence = try await advance()
        try await connection.rows("DELETE FROM records WHERE family_id = \(id) AND zone_name = \(name)", logger: logger)
        try await connection.rows(
            "UPDATE zones SET deleted_at = \(now), changed_seq = \(sequence) WHERE family_id = \(id) AND zone_name = \(name)", logger: logger
        )
        try await publish([.zone(name, of: id)])
    }
}
