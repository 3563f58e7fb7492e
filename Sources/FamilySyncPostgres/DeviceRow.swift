import FamilySyncCore
import Foundation
import PostgresNIO

/// The columns of `devices` every device query selects, and their decoding.
enum DeviceRow {
    static let select = "SELECT device_id, family_id, role, name, child_name, platform, time_zone, status, registered_at, last_seen_at, last_sync_at FROM devices"

    static func decode(_ row: PostgresRow) throws -> Device {
        let (id, familyID, role, name, childName, platform, timeZone, status, registeredAt, lastSeenAt, lastSyncAt) =
            try row.decode((UUID, UUID, String, String, String?, String, String, String, Date, Date?, Date?).self)
        return Device(
            id: id, familyID: familyID, role: DeviceRole(rawValue: role) ?? .child, name: name, childName: childName,
            platform: DevicePlatform(rawValue: platform) ?? .other, timeZone: timeZone,
            status: DeviceStatus(rawValue: status) ?? .revoked, registeredAt: registeredAt,
            lastSeenAt: lastSeenAt, lastSyncAt: lastSyncAt
        )
    }
}
