import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Families: created with their first parent device, deleted with everything they hold.
public struct PostgresFamilyStore: Sendable {
    let client: PostgresClient
    let clock: any WallClock
    let logger: Logger

    public init(client: PostgresClient, clock: any WallClock, logger: Logger) {
        self.client = client
        self.clock = clock
        self.logger = logger
    }

    /// Creates a family, its `family` zone, and its first (active) parent device with a credential.
    public func create(parentName: String, platform: DevicePlatform, timeZone: String) async throws -> (Device, DeviceCredential) {
        let familyID = UUID()
        let deviceID = UUID()
        let credential = DeviceCredential.generate(familyID: familyID, deviceID: deviceID)
        let now = clock.now()
        let logger = logger
        let device = try await client.inTransaction(logger: logger) { connection in
            // The family's creation is change 1 (schema 0004): a token at 0 has seen nothing.
            try await connection.query("INSERT INTO families (family_id, created_at, change_seq) VALUES (\(familyID), \(now), 1)", logger: logger)
            try await connection.query(
                "INSERT INTO zones (family_id, zone_name, child_device_id, created_at, changed_seq) VALUES (\(familyID), 'family', NULL, \(now), 1)", logger: logger
            )
            return try await PostgresDeviceStore.insert(
                Device(id: deviceID, familyID: familyID, role: .parent, name: parentName, childName: nil, platform: platform,
                       timeZone: timeZone, status: .active, registeredAt: now, lastSeenAt: now, lastSyncAt: nil),
                credentialHash: credential.hash, changedSequence: 1, on: connection, logger: logger
            )
        }
        return (device, credential)
    }

    /// Deletes the family and, by cascade, every device, pairing, zone and record of it. Its held
    /// polls wake and find their devices gone.
    public func delete(familyID: UUID) async throws {
        let logger = logger
        try await ChangeLog(client: client, logger: logger).write(family: familyID) { family in
            try await family.connection.query("DELETE FROM families WHERE family_id = \(familyID)", logger: logger)
            try await family.publish([.family(familyID)])
        }
    }
}
