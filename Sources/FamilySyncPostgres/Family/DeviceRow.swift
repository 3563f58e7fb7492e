import FamilySyncCore
import Foundation
import PostgresNIO

/// The columns of `devices` every device query selects, and their decoding, by name.
enum DeviceRow {
    static let columns = "device_id, family_id, role, name, child_name, platform, time_zone, status, registered_at, last_seen_at, last_sync_at, member_id, tracked"
    static let select = "SELECT \(columns) FROM devices"

    static func decode(_ row: PostgresRow) throws -> Device {
        let cells = row.makeRandomAccess()
        let role = DeviceRole(rawValue: try cells["role"].decode(String.self)) ?? .child
        return Device(
            id: try cells["device_id"].decode(UUID.self), familyID: try cells["family_id"].decode(UUID.self), role: role,
            name: try cells["name"].decode(String.self), childName: try cells["child_name"].decode(String?.self),
            platform: DevicePlatform(rawValue: try cells["platform"].decode(String.self)) ?? .other, timeZone: try cells["time_zone"].decode(String.self),
            status: DeviceStatus(rawValue: try cells["status"].decode(String.self)) ?? .revoked, registeredAt: try cells["registered_at"].decode(Date.self),
            lastSeenAt: try cells["last_seen_at"].decode(Date?.self), lastSyncAt: try cells["last_sync_at"].decode(Date?.self),
            memberID: try cells["member_id"].decode(UUID?.self), tracked: try cells["tracked"].decode(Bool.self)
        )
    }
}
