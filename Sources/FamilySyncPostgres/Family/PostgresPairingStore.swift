import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Pairings (PROTOCOL §3): invitations a parent creates, a new device accepts with the token, and
/// a parent then confirms or rejects.
public struct PostgresPairingStore: Sendable {
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

    /// An invitation; with `memberID`, into that member (a live member of the pairing's role),
    /// else into a new member made at confirmation.
    public func create(familyID: UUID, createdBy: UUID, role: DeviceRole, childName: String?, memberID: UUID? = nil, ttlSeconds: Int, as writer: ChangeWriter) async throws -> (Pairing, PairingToken) {
        let token = PairingToken.generate(familyID: familyID)
        let now = clock.now()
        let pairing = Pairing(
            id: UUID(), familyID: familyID, role: role, childName: childName, storedStatus: .pending, createdBy: createdBy,
            deviceID: nil, verificationEmoji: nil, createdAt: now, expiresAt: now.addingTimeInterval(TimeInterval(ttlSeconds)), memberID: memberID
        )
        let logger = logger
        try await changeLog.write(family: familyID, as: writer) { family in
            if let memberID {
                let member = try await family.lockedMember(memberID)
                try Member.checkMove(device: role, to: member)
            }
            try await family.connection.rows(
                """
                INSERT INTO pairings (family_id, pairing_id, role, child_name, status, created_by, token_hash, created_at, expires_at, member_id)
                VALUES (\(familyID), \(pairing.id), \(role.rawValue), \(childName), 'pending', \(createdBy), \(ByteBuffer(bytes: token.hash)), \(now), \(pairing.expiresAt),
                        \(memberID))
                """,
                logger: logger
            )
            try await family.audit(.pairingCreated, member: memberID, subjectType: "pairing", subject: pairing.id.lowercased, at: now)
        }
        return (pairing, token)
    }

    /// The family's pairings, newest first; with `status`, those whose status (expiry included) is it.
    public func list(familyID: UUID, status: PairingStatus?) async throws -> [Pairing] {
        let now = clock.now()
        let all = try await database.rows(
            "\(unescaped: PairingRows.select) WHERE family_id = \(familyID) ORDER BY created_at DESC, pairing_id",
            logger: logger
        ).map(PairingRows.decode)
        guard let status else { return all }
        return all.filter { $0.status(at: now) == status }
    }

    /// A pairing of the family; with `acceptedBy`, only if that device accepted it.
    public func get(familyID: UUID, pairingID: UUID, acceptedBy: UUID? = nil) async throws -> Pairing? {
        try await database.rows(
            """
            \(unescaped: PairingRows.select)
            WHERE family_id = \(familyID) AND pairing_id = \(pairingID) AND (\(acceptedBy)::uuid IS NULL OR device_id = \(acceptedBy))
            """,
            logger: logger
        ).map(PairingRows.decode).first
    }

    public typealias Acceptance = PairingAcceptance

    /// Accepts with the token: registers the device (awaiting confirmation) and fixes the emoji.
    /// A wrong token counts against the pairing, and is recorded even though the request fails:
    /// the fifth burns it.
    public func accept(pairingID: UUID, token: PairingToken, parentDeviceID: UUID?, name: String, platform: DevicePlatform, timeZone: String, as writer: ChangeWriter) async throws -> Acceptance {
        let now = clock.now()
        let logger = logger
        let outcome: Outcome
        do {
            outcome = try await changeLog.write(family: token.familyID, as: writer) { family in
                try await Self.accept(pairingID: pairingID, token: token, parentDeviceID: parentDeviceID, name: name, platform: platform, timeZone: timeZone, now: now, in: family, logger: logger)
            }
        } catch let error as FamilySyncError where error.code == .notFound {
            // An unknown family answers as a wrong token.
            throw FamilySyncError.notFound("No such pairing, or the token does not match.")
        }
        switch outcome {
        case .accepted(let acceptance): return acceptance
        case .wrongToken: throw FamilySyncError.notFound("No such pairing, or the token does not match.")
        }
    }

    private enum Outcome: Sendable {
        case accepted(Acceptance)
        case wrongToken
    }

    private static func accept(
        pairingID: UUID, token: PairingToken, parentDeviceID: UUID?, name: String, platform: DevicePlatform, timeZone: String, now: Date,
        in family: LockedFamily, logger: Logger
    ) async throws -> Outcome {
        let connection = family.connection
        let rows = try await connection.rows(
            """
            SELECT \(unescaped: PairingRows.columns), token_hash, failed_attempts FROM pairings
            WHERE family_id = \(token.familyID) AND pairing_id = \(pairingID) FOR UPDATE
            """,
            logger: logger
        )
        guard let row = rows.first else {
            throw FamilySyncError.notFound("No such pairing, or the token does not match.")
        }
        var pairing = try PairingRows.decode(row)
        let columns = row.makeRandomAccess()
        let storedHash = try columns["token_hash"].decode(ByteBuffer.self)
        let attempts = try columns["failed_attempts"].decode(Int.self)
        try pairing.checkAcceptable(at: now)
        guard constantTimeEquals(storedHash.readableBytesView, token.hash), parentDeviceID.map({ $0 == pairing.createdBy }) ?? true else {
            try await connection.rows(
                """
                UPDATE pairings SET failed_attempts = failed_attempts + 1, status = \(Pairing.statusAfterWrongToken(failedAttemptsBefore: attempts).rawValue)
                WHERE family_id = \(token.familyID) AND pairing_id = \(pairingID)
                """,
                logger: logger
            )
            return .wrongToken
        }
        let deviceID = UUID()
        let emoji = EmojiCode.derive(token: token.token, pairingID: pairingID, parentDeviceID: pairing.createdBy, childDeviceID: deviceID)
        return .accepted(try await family.acceptPairing(&pairing, deviceID: deviceID, emoji: emoji, name: name, platform: platform, timeZone: timeZone, now: now))
    }

    /// Confirms or rejects an accepted pairing, or revokes a pending one. Confirming activates the
    /// device and, for a child, creates its zone `child-<deviceId>`, shared with it; rejecting
    /// revokes the device.
    public func decide(_ decision: Pairing.Decision, familyID: UUID, pairingID: UUID, as writer: ChangeWriter) async throws -> Pairing {
        let now = clock.now()
        let logger = logger
        return try await changeLog.write(family: familyID, as: writer) { family in
            let connection = family.connection
            let pairing = try await lockedPairing(familyID: familyID, pairingID: pairingID, on: connection).deciding(decision, at: now)
            try await connection.rows(
                """
                UPDATE pairings SET status = \(pairing.storedStatus.rawValue), decided_at = \(now)
                WHERE family_id = \(familyID) AND pairing_id = \(pairingID)
                """,
                logger: logger
            )
            if decision != .confirm {
                let action: AuditAction = decision == .reject ? .pairingRejected : .pairingCancelled
                try await family.audit(action, member: pairing.memberID, subjectType: "pairing", subject: pairingID.lowercased, at: now)
            }
            guard let deviceID = pairing.deviceID else { return pairing }
            switch decision {
            case .confirm:
                let memberID: UUID
                switch pairing.joining {
                case .invited(let invited):
                    memberID = invited
                case .newMember(let childName):
                    memberID = UUID()
                    let device = try await family.lockedDevice(deviceID)
                    try await family.createMember(memberID, name: childName ?? device.name, role: pairing.role, now: now)
                }
                try await family.activateDevice(deviceID, joining: memberID, touchingMemberZone: pairing.joining.isExistingMember)
                try await family.audit(.pairingConfirmed, member: memberID, subjectType: "pairing", subject: pairingID.lowercased, at: now)
                // A change of the database: parents' feeds must show the new zone.
                if pairing.role == .child { try await family.createChildZone(for: deviceID, now: now) }
            case .reject, .revoke:
                try await family.revokeDevice(deviceID)
            }
            return pairing
        }
    }

    private func lockedPairing(familyID: UUID, pairingID: UUID, on connection: PostgresConnection) async throws -> Pairing {
        let rows = try await connection.rows(
            "\(unescaped: PairingRows.select) WHERE family_id = \(familyID) AND pairing_id = \(pairingID) FOR UPDATE",
            logger: logger
        )
        guard let pairing = try rows.map(PairingRows.decode).first else {
            throw FamilySyncError.notFound("No such pairing.")
        }
        return pairing
    }
}
