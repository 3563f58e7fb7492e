import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Families: created with their first parent device, deleted with everything they hold.
public struct PostgresFamilyStore: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    /// `changeLog`: the one every store writes through (`ServerDependencies` makes it).
    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.database = changeLog.database
        self.changeLog = changeLog
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
        let device = try await changeLog.create(family: familyID, now: now) { family in
            try await family.connection.rows(
                "INSERT INTO recovery_codes (code_hash, family_id) VALUES (\(ByteBuffer(bytes: recoveryCode.hash)), \(familyID))", logger: logger
            )
            try await family.createMember(memberID, name: parentName, role: .parent, now: now)
            return try await family.insertDevice(
                Device(id: deviceID, familyID: familyID, role: .parent, name: parentName, childName: nil, platform: platform,
                       timeZone: timeZone, status: .active, registeredAt: now, lastSeenAt: now, lastSyncAt: nil, memberID: memberID),
                credentialHash: credential.hash
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
    public func recover(_ proof: RecoveryProof, name: String, platform: DevicePlatform, timeZone: String, as writer: ChangeWriter) async throws -> Recovery {
        let logger = logger
        let now = clock.now()
        // Each proof is looked up by itself first, then the member within its family: the lookup
        // tables are keyed by what is looked up, not by family (schema 0012).
        let family: UUID?
        switch proof {
        case .code(let code):
            let rows = try await database.rows(
                "SELECT family_id, code_hash FROM recovery_codes WHERE code_hash = \(ByteBuffer(bytes: code.hash))", logger: logger
            )
            family = try rows.first.flatMap { row in
                let (family, stored) = try row.decode((UUID, ByteBuffer).self)
                return constantTimeEquals(stored.readableBytesView, code.hash) ? family : nil
            }
        case .appleAccount(let subject):
            let rows = try await database.rows("SELECT family_id FROM apple_subjects WHERE apple_sub = \(subject)", logger: logger)
            family = try rows.first?.decode(UUID.self)
        }
        let member: UUID? = switch (proof, family) {
        case (_, nil):
            nil
        case (.code, let family?):
            // The person who was shown the code: the family's first parent member.
            try await database.rows(
                """
                SELECT member_id FROM members WHERE family_id = \(family) AND role = 'parent' AND deleted_at IS NULL
                ORDER BY created_at, member_id LIMIT 1
                """,
                logger: logger
            ).first?.decode(UUID.self)
        case (.appleAccount(let subject), let family?):
            try await database.rows(
                """
                SELECT a.member_id FROM apple_accounts a
                JOIN members m ON m.family_id = a.family_id AND m.member_id = a.member_id AND m.deleted_at IS NULL
                WHERE a.family_id = \(family) AND a.apple_sub = \(subject)
                """,
                logger: logger
            ).first?.decode(UUID.self)
        }
        let found = family.flatMap { family in member.map { (family: family, member: $0) } }
        guard let found else { throw FamilySyncError.notFound("No family answers to this recovery.") }
        let deviceID = UUID()
        let credential = DeviceCredential.generate(familyID: found.family, deviceID: deviceID)
        let newCode = RecoveryCode.generate()
        let device = try await changeLog.write(family: found.family, as: writer) { family in
            let connection = family.connection
            if case .code(let code) = proof {
                // The code is used once: a second recovery racing this one finds it changed.
                let changed = try await connection.rows(
                    "DELETE FROM recovery_codes WHERE code_hash = \(ByteBuffer(bytes: code.hash)) AND family_id = \(found.family) RETURNING family_id",
                    logger: logger
                )
                guard !changed.isEmpty else { throw FamilySyncError.notFound("No family answers to this recovery.") }
            } else {
                try await connection.rows("DELETE FROM recovery_codes WHERE family_id = \(found.family)", logger: logger)
            }
            try await connection.rows(
                "INSERT INTO recovery_codes (code_hash, family_id) VALUES (\(ByteBuffer(bytes: newCode.hash)), \(found.family))", logger: logger
            )
            return try await family.insertDevice(
                Device(id: deviceID, familyID: found.family, role: .parent, name: name, childName: nil, platform: platform,
                       timeZone: timeZone, status: .active, registeredAt: now, lastSeenAt: now, lastSyncAt: nil, memberID: found.member),
                credentialHash: credential.hash
            )
        }
        return Recovery(device: device, credential: credential, recoveryCode: newCode)
    }

    /// A new recovery code for the family; the old one stops working.
    public func issueRecoveryCode(familyID: UUID) async throws -> RecoveryCode {
        let code = RecoveryCode.generate()
        let logger = logger
        try await database.inTransaction(logger: logger) { connection in
            try await connection.rows("DELETE FROM recovery_codes WHERE family_id = \(familyID)", logger: logger)
            try await connection.rows(
                "INSERT INTO recovery_codes (code_hash, family_id) VALUES (\(ByteBuffer(bytes: code.hash)), \(familyID))", logger: logger
            )
        }
        return code
    }

    /// Links an Apple account (a verified token's `sub`) to the caller's member. An account linked
    /// to another family is `CONFLICT`; linking it again to the same member changes nothing.
    public func linkAppleAccount(_ subject: String, familyID: UUID, memberID: UUID, as writer: ChangeWriter) async throws {
        let logger = logger
        let now = clock.now()
        try await changeLog.write(family: familyID, as: writer) { family in
            let claimed = try await family.connection.rows(
                """
                INSERT INTO apple_subjects (apple_sub, family_id) VALUES (\(subject), \(familyID))
                ON CONFLICT (apple_sub) DO UPDATE SET family_id = EXCLUDED.family_id WHERE apple_subjects.family_id = EXCLUDED.family_id
                RETURNING family_id
                """,
                logger: logger
            )
            guard !claimed.isEmpty else {
                throw FamilySyncError(.conflict, "This Apple account is linked to another family.")
            }
            try await family.connection.rows(
                """
                INSERT INTO apple_accounts (family_id, apple_sub, member_id, linked_at) VALUES (\(familyID), \(subject), \(memberID), \(now))
                ON CONFLICT (family_id, apple_sub) DO UPDATE SET member_id = EXCLUDED.member_id, linked_at = EXCLUDED.linked_at
                """,
                logger: logger
            )
        }
    }

    /// Deletes the family and every device, pairing, zone and record of it
    /// (`LockedFamily.deleteFamily`). Its held polls wake and find their devices gone.
    public func delete(familyID: UUID, as writer: ChangeWriter) async throws {
        try await changeLog.write(family: familyID, as: writer) { family in
            try await family.deleteFamily(tablesChildrenFirst: Self.familyTablesChildrenFirst)
        }
    }

    /// The tables of a family's data that foreign keys join, each before every table its own
    /// keys reference: `families` last. The lookup tables, which no key joins, are not here.
    public static let familyTablesChildrenFirst = [
        "records", "pairings", "zones",
        "push_outbox", "idempotency_keys", "dashboard_sessions", "device_push_tokens", "device_errors", "device_heartbeat_gaps", "device_health_days", "device_health", "devices",
        "apple_accounts", "parent_pin_attempts", "members",
        "audit_events", "audit_reads", "family_retention", "families",
    ]
}
