import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Families: created with their first parent device, deleted with everything they hold.
public struct PostgresFamilyStore: Sendable {
    let client: PostgresClient
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    /// `outbox`: push on (§12), the outbox rows of each change written with it.
    public init(client: PostgresClient, clock: any WallClock, logger: Logger, outbox: PushOutbox? = nil, knownDevices: KnownDevices? = nil) {
        self.client = client
        self.changeLog = ChangeLog(client: client, logger: logger, outbox: outbox, knownDevices: knownDevices)
        self.clock = clock
        self.logger = logger
    }

    /// Creates a family, its `family` zone, its first (active) parent device with a credential, the
    /// parent's member and its zone (§8), and the family's recovery code (§13).
    public func create(parentName: String, platform: DevicePlatform, timeZone: String) async throws -> (Device, DeviceCredential, RecoveryCode) {
        let familyID = UUID()
        let deviceID = UUID()
        let memberID = UUID()
        let credential = DeviceCredential.generate(familyID: familyID, deviceID: deviceID)
        let recoveryCode = RecoveryCode.generate()
        let now = clock.now()
        let logger = logger
        let device = try await client.inTransaction(logger: logger) { connection in
            // The family's creation is change 1 (schema 0004): a token at 0 has seen nothing.
            try await connection.query(
                "INSERT INTO families (family_id, created_at, change_seq, recovery_code_hash) VALUES (\(familyID), \(now), 1, \(ByteBuffer(bytes: recoveryCode.hash)))",
                logger: logger
            )
            try await connection.query(
                "INSERT INTO zones (family_id, zone_name, child_device_id, created_at, changed_seq) VALUES (\(familyID), 'family', NULL, \(now), 1)", logger: logger
            )
            try await PostgresMemberStore.insert(memberID, familyID: familyID, name: parentName, role: .parent, now: now, sequence: 1, on: connection, logger: logger)
            return try await PostgresDeviceStore.insert(
                Device(id: deviceID, familyID: familyID, role: .parent, name: parentName, childName: nil, platform: platform,
                       timeZone: timeZone, status: .active, registeredAt: now, lastSeenAt: now, lastSyncAt: nil, memberID: memberID),
                credentialHash: credential.hash, changedSequence: 1, on: connection, logger: logger
            )
        }
        return (device, credential, recoveryCode)
    }

    /// How a lost family is found again (§13).
    public enum RecoveryProof: Sendable {
        case code(RecoveryCode)
        /// The `sub` of a verified Sign in with Apple identity token.
        case appleAccount(String)
    }

    public struct Recovery: Sendable {
        public var device: Device
        public var credential: DeviceCredential
        public var recoveryCode: RecoveryCode
    }

    /// A new active parent device of the family the proof names, and a new recovery code (the old
    /// one stops working). With a code, the device joins the family's first parent member (the
    /// person who was shown the code); with an Apple account, the member it is linked to. An
    /// unknown proof is `NOT_FOUND`, the same for every wrong code.
    public func recover(_ proof: RecoveryProof, name: String, platform: DevicePlatform, timeZone: String) async throws -> Recovery {
        let logger = logger
        let now = clock.now()
        let found: (family: UUID, member: UUID)?
        switch proof {
        case .code(let code):
            let rows = try await client.rows(
                """
                SELECT f.family_id, f.recovery_code_hash, m.member_id FROM families f
                JOIN members m ON m.family_id = f.family_id AND m.role = 'parent' AND m.deleted_at IS NULL
                WHERE f.recovery_code_hash = \(ByteBuffer(bytes: code.hash))
                ORDER BY m.created_at, m.member_id LIMIT 1
                """,
                logger: logger
            )
            found = try rows.first.flatMap { row in
                let (family, stored, member) = try row.decode((UUID, ByteBuffer, UUID).self)
                return constantTimeEquals(stored.readableBytesView, code.hash) ? (family, member) : nil
            }
        case .appleAccount(let subject):
            let rows = try await client.rows(
                """
                SELECT a.family_id, a.member_id FROM apple_accounts a
                JOIN members m ON m.family_id = a.family_id AND m.member_id = a.member_id AND m.deleted_at IS NULL
                WHERE a.apple_sub = \(subject)
                """,
                logger: logger
            )
            found = try rows.first.map { try $0.decode((UUID, UUID).self) }.map { ($0.0, $0.1) }
        }
        guard let found else { throw FamilySyncError.notFound("No family answers to this recovery.") }
        let deviceID = UUID()
        let credential = DeviceCredential.generate(familyID: found.family, deviceID: deviceID)
        let newCode = RecoveryCode.generate()
        let device = try await changeLog.write(family: found.family) { family in
            let connection = family.connection
            if case .code(let code) = proof {
                // The code is used once: a second recovery racing this one finds it changed.
                let changed = try await connection.query(
                    """
                    UPDATE families SET recovery_code_hash = \(ByteBuffer(bytes: newCode.hash))
                    WHERE family_id = \(found.family) AND recovery_code_hash = \(ByteBuffer(bytes: code.hash)) RETURNING family_id
                    """,
                    logger: logger
                )
                guard try await changed.first(where: { _ in true }) != nil else { throw FamilySyncError.notFound("No family answers to this recovery.") }
            } else {
                try await connection.query(
                    "UPDATE families SET recovery_code_hash = \(ByteBuffer(bytes: newCode.hash)) WHERE family_id = \(found.family)", logger: logger
                )
            }
            let sequence = try await family.advance()
            let device = try await PostgresDeviceStore.insert(
                Device(id: deviceID, familyID: found.family, role: .parent, name: name, childName: nil, platform: platform,
                       timeZone: timeZone, status: .active, registeredAt: now, lastSeenAt: now, lastSyncAt: nil, memberID: found.member),
                credentialHash: credential.hash, changedSequence: sequence, on: connection, logger: logger
            )
            try await family.publish([.device(deviceID, of: found.family)])
            return device
        }
        return Recovery(device: device, credential: credential, recoveryCode: newCode)
    }

    /// A new recovery code for the family; the old one stops working.
    public func issueRecoveryCode(familyID: UUID) async throws -> RecoveryCode {
        let code = RecoveryCode.generate()
        try await client.rows(
            "UPDATE families SET recovery_code_hash = \(ByteBuffer(bytes: code.hash)) WHERE family_id = \(familyID)", logger: logger
        )
        return code
    }

    /// Links an Apple account (a verified token's `sub`) to the caller's member. An account linked
    /// to another family is `CONFLICT`; linking it again to the same member changes nothing.
    public func linkAppleAccount(_ subject: String, familyID: UUID, memberID: UUID) async throws {
        let logger = logger
        let now = clock.now()
        try await changeLog.write(family: familyID) { family in
            let rows = try await family.connection.query(
                """
                INSERT INTO apple_accounts (family_id, apple_sub, member_id, linked_at) VALUES (\(familyID), \(subject), \(memberID), \(now))
                ON CONFLICT (apple_sub) DO UPDATE SET member_id = EXCLUDED.member_id, linked_at = EXCLUDED.linked_at
                    WHERE apple_accounts.family_id = EXCLUDED.family_id
                RETURNING member_id
                """,
                logger: logger
            )
            guard try await rows.first(where: { _ in true }) != nil else {
                throw FamilySyncError(.conflict, "This Apple account is linked to another family.")
            }
        }
    }

    /// Deletes the family and, by cascade, every device, pairing, zone and record of it. Its held
    /// polls wake and find their devices gone.
    public func delete(familyID: UUID) async throws {
        let logger = logger
        try await changeLog.write(family: familyID) { family in
            try await family.connection.query("DELETE FROM families WHERE family_id = \(familyID)", logger: logger)
            try await family.publish([.family(familyID)])
        }
    }
}
