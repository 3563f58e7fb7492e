import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Reads of `zones` and of a family's place in its change log, on a connection whose transaction
/// the caller runs (a snapshot read or a `LockedFamily`).
enum ZoneRows {
    static func zone(_ familyID: UUID, _ name: String, on connection: PostgresConnection, logger: Logger) async throws -> Zone {
        let rows = try await connection.rows(
            """
            SELECT zone_name, child_device_id, member_id, incarnation, changed_seq FROM zones
            WHERE family_id = \(familyID) AND zone_name = \(name) AND deleted_at IS NULL
            """,
            logger: logger
        )
        guard let (zoneName, child, member, incarnation, changed) = try rows.decode((String, UUID?, UUID?, UUID, Int64).self).first else {
            throw FamilySyncError(.zoneNotFound, "No such zone.")
        }
        return Zone(name: zoneName, childDeviceID: child, memberID: member, incarnation: incarnation, changedSequence: changed, deleted: false)
    }

    /// Every zone of the family, deleted ones included, by name.
    static func all(_ familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> [Zone] {
        try await connection.rows(
            "SELECT zone_name, child_device_id, member_id, incarnation, changed_seq, deleted_at IS NOT NULL FROM zones WHERE family_id = \(familyID) ORDER BY zone_name",
            logger: logger
        ).decode((String, UUID?, UUID?, UUID, Int64, Bool).self).reduce(into: []) {
            $0.append(Zone(name: $1.0, childDeviceID: $1.1, memberID: $1.2, incarnation: $1.3, changedSequence: $1.4, deleted: $1.5))
        }
    }

    /// The zone of a tracked device of the family (a child's, or a tracked parent's for reading),
    /// if `use` may name it (`ChildZoneUse.check`).
    /// The subquery names the family by value (docs/operations.md, Citus rule 2).
    static func childZone(_ childID: UUID, of familyID: UUID, for use: ChildZoneUse, on connection: PostgresConnection, logger: Logger) async throws -> String {
        let rows = try await connection.rows(
            "SELECT role, status, EXISTS (SELECT 1 FROM zones z WHERE z.family_id = \(familyID) AND z.child_device_id = d.device_id) FROM devices d WHERE family_id = \(familyID) AND device_id = \(childID)",
            logger: logger
        )
        let device = try rows.decode((String, String, Bool).self).first
        let role = device.flatMap { DeviceRole(rawValue: $0.0) }
        // A parent device that was ever tracked keeps its zone, and its history stays readable.
        let hasZone = device?.2 ?? false
        try use.check(role: role, status: device.flatMap { DeviceStatus(rawValue: $0.1) }, tracked: hasZone)
        guard let role, let name = Device.zoneName(of: childID, role: role, tracked: true) else { throw FamilySyncError.notFound("No such child device.") }
        return try await zone(familyID, name, on: connection, logger: logger).name
    }

    static func position(of familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> ChangeLogPosition {
        let rows = try await connection.rows("SELECT change_seq, horizon_seq FROM families WHERE family_id = \(familyID)", logger: logger)
        guard let (sequence, horizon) = try rows.decode((Int64, Int64).self).first else {
            throw FamilySyncError.notFound("No such family.")
        }
        return ChangeLogPosition(sequence: sequence, horizon: horizon)
    }
}
