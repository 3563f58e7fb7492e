import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// How pairings are read, by the pairing and sign-in stores alike.
enum PairingRows {
    static let columns = "pairing_id, family_id, role, child_name, status, created_by, device_id, verification_emoji, created_at, expires_at, member_id"
    static let select = "SELECT \(columns) FROM pairings"

    static func decode(_ row: PostgresRow) throws -> Pairing {
        let cells = row.makeRandomAccess()
        return Pairing(
            id: try cells["pairing_id"].decode(UUID.self), familyID: try cells["family_id"].decode(UUID.self),
            role: DeviceRole(rawValue: try cells["role"].decode(String.self)) ?? .child, childName: try cells["child_name"].decode(String?.self),
            storedStatus: PairingStatus(rawValue: try cells["status"].decode(String.self)) ?? .revoked, createdBy: try cells["created_by"].decode(UUID.self),
            deviceID: try cells["device_id"].decode(UUID?.self), verificationEmoji: try cells["verification_emoji"].decode([String]?.self),
            createdAt: try cells["created_at"].decode(Date.self), expiresAt: try cells["expires_at"].decode(Date.self),
            memberID: try cells["member_id"].decode(UUID?.self)
        )
    }
}
