import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

extension LockedFamily {
    /// The end of every acceptance, by token (§3) or by a sign-in's claim (§3.1): the device
    /// registered, awaiting confirmation, with a new credential, and the pairing accepted by it
    /// with its emoji. The new device is a numbered change: parents' polls wake to show the emoji.
    func acceptPairing(
        _ pairing: inout Pairing, deviceID: UUID, emoji: [String], name: String, platform: DevicePlatform, timeZone: String, now: Date
    ) async throws -> PairingAcceptance {
        let credential = DeviceCredential.generate(familyID: pairing.familyID, deviceID: deviceID)
        let device = try await insertDevice(
            Device(
                id: deviceID, familyID: pairing.familyID, role: pairing.role, name: name, childName: pairing.childName,
                platform: platform, timeZone: timeZone, status: .awaitingConfirmation, registeredAt: now, lastSeenAt: now, lastSyncAt: nil
            ),
            credentialHash: credential.hash
        )
        pairing.storedStatus = .accepted
        pairing.deviceID = device.id
        pairing.verificationEmoji = emoji
        try await connection.rows(
            """
            UPDATE pairings SET status = 'accepted', device_id = \(device.id), verification_emoji = \(emoji)
            WHERE family_id = \(pairing.familyID) AND pairing_id = \(pairing.id)
            """,
            logger: logger
        )
        return PairingAcceptance(pairing: pairing, device: device, credential: credential)
    }
}
