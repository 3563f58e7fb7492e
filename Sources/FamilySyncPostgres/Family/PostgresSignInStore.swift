import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Sign-ins by a code the device shows (PROTOCOL §3.1): the device starts one, a family's parent
/// takes its code (a §3 pairing of role parent, made in that family), the device claims its
/// credential (the acceptance), and the parent confirms the pairing as any other.
public struct PostgresSignInStore: Sendable {
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

    static let columns = "code_hash, secret_hash, device_name, platform, time_zone, created_at, expires_at, family_id, pairing_id, device_id, claimed_at"

    /// The row, its code given (only its hash is stored).
    static func decode(_ row: PostgresRow, code: SignInCode) throws -> (SignIn, secretHash: ByteBuffer) {
        let cells = row.makeRandomAccess()
        let signIn = SignIn(
            code: code, deviceName: try cells["device_name"].decode(String.self),
            platform: DevicePlatform(rawValue: try cells["platform"].decode(String.self)) ?? .other, timeZone: try cells["time_zone"].decode(String.self),
            createdAt: try cells["created_at"].decode(Date.self), expiresAt: try cells["expires_at"].decode(Date.self),
            familyID: try cells["family_id"].decode(UUID?.self), pairingID: try cells["pairing_id"].decode(UUID?.self),
            deviceID: try cells["device_id"].decode(UUID?.self), claimedAt: try cells["claimed_at"].decode(Date?.self)
        )
        return (signIn, try cells["secret_hash"].decode(ByteBuffer.self))
    }

    /// A new sign-in and the device's secret. A code still in use is never handed out twice: a
    /// new code is drawn until one is free (an expired row's code is free again).
    public func start(name: String, platform: DevicePlatform, timeZone: String) async throws -> (SignIn, SignInSecret) {
        let now = clock.now()
        for _ in 0..<8 {
            let code = SignInCode.generate()
            let secret = SignInSecret.generate(code: code)
            let signIn = SignIn(
                code: code, deviceName: name, platform: platform, timeZone: timeZone, createdAt: now, expiresAt: now.addingTimeInterval(TimeInterval(SignIn.ttlSeconds))
            )
            let inserted = try await database.rows(
                """
                INSERT INTO sign_ins (code_hash, secret_hash, device_name, platform, time_zone, created_at, expires_at)
                VALUES (\(ByteBuffer(bytes: code.hash)), \(ByteBuffer(bytes: secret.hash)), \(name), \(platform.rawValue), \(timeZone), \(now), \(signIn.expiresAt))
                ON CONFLICT (code_hash) DO UPDATE SET
                    secret_hash = EXCLUDED.secret_hash, device_name = EXCLUDED.device_name, platform = EXCLUDED.platform, time_zone = EXCLUDED.time_zone,
                    created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, family_id = NULL, pairing_id = NULL, device_id = NULL, claimed_at = NULL
                WHERE sign_ins.expires_at <= \(now)
                RETURNING code_hash
                """,
                logger: logger
            )
            if !inserted.isEmpty { return (signIn, secret) }
        }
        throw FamilySyncError(.tryAgainLater, "No free sign-in code was found; try again.")
    }

    /// A family's parent takes the code: a pairing of role parent, made in the family and already
    /// promised to the signing-in device (its id and the emoji are fixed now), which claims it.
    /// An unknown code is `NOT_FOUND`; an expired or used one `PAIRING_EXPIRED`.
    public func take(code: SignInCode, familyID: UUID, parentDeviceID: UUID, as writer: ChangeWriter) async throws -> Pairing {
        let now = clock.now()
        let logger = logger
        return try await changeLog.write(family: familyID, as: writer) { family in
            let connection = family.connection
            let rows = try await connection.rows(
                "SELECT \(unescaped: Self.columns) FROM sign_ins WHERE code_hash = \(ByteBuffer(bytes: code.hash)) FOR UPDATE",
                logger: logger
            )
            guard let row = rows.first else { throw FamilySyncError.notFound("No such sign-in code.") }
            let (signIn, _) = try Self.decode(row, code: code)
            try signIn.checkTakeable(at: now)
            let token = PairingToken.generate(familyID: familyID)
            let deviceID = UUID()
            // The device joins the person who took its code: a browser is a device of a parent,
            // not a parent of its own.
            let taker = try await family.lockedDevice(parentDeviceID)
            var pairing = Pairing(
                id: UUID(), familyID: familyID, role: .parent, childName: nil, storedStatus: .pending, createdBy: parentDeviceID,
                deviceID: nil, verificationEmoji: nil, createdAt: now, expiresAt: signIn.expiresAt, memberID: taker.memberID
            )
            // The token is never shown: the device accepts by claiming with its own secret. It
            // keys the emoji, as in §3, and is kept hashed like every pairing's.
            pairing.verificationEmoji = EmojiCode.derive(token: token.token, pairingID: pairing.id, parentDeviceID: parentDeviceID, childDeviceID: deviceID)
            try await connection.rows(
                """
                INSERT INTO pairings (family_id, pairing_id, role, child_name, status, created_by, token_hash, created_at, expires_at, verification_emoji, member_id)
                VALUES (\(familyID), \(pairing.id), 'parent', NULL, 'pending', \(parentDeviceID), \(ByteBuffer(bytes: token.hash)), \(now), \(pairing.expiresAt),
                        \(pairing.verificationEmoji), \(pairing.memberID))
                """,
                logger: logger
            )
            try await connection.rows(
                """
                UPDATE sign_ins SET family_id = \(familyID), pairing_id = \(pairing.id), device_id = \(deviceID)
                WHERE code_hash = \(ByteBuffer(bytes: code.hash))
                """,
                logger: logger
            )
            try await family.audit(.pairingCreated, member: pairing.memberID, subjectType: "pairing", subject: pairing.id.lowercased, at: now)
            return pairing
        }
    }

    public enum Claim: Sendable {
        /// No parent has taken the code yet.
        case waiting(SignIn)
        /// The device is registered, awaiting the parent's confirmation; its credential is here.
        case claimed(SignIn, PairingAcceptance)
    }

    /// The device asks with its secret. A wrong secret (or code) is `NOT_FOUND`; once a parent
    /// has taken the code, the first claim registers the device and hands out its credential,
    /// and any later one is `PAIRING_EXPIRED`.
    public func claim(_ secret: SignInSecret, as writer: ChangeWriter) async throws -> Claim {
        let now = clock.now()
        let code = secret.code
        let rows = try await database.rows(
            "SELECT \(unescaped: Self.columns) FROM sign_ins WHERE code_hash = \(ByteBuffer(bytes: code.hash))", logger: logger
        )
        guard let row = rows.first else { throw Self.wrongSecret }
        let (signIn, secretHash) = try Self.decode(row, code: code)
        guard constantTimeEquals(secretHash.readableBytesView, secret.hash) else { throw Self.wrongSecret }
        try signIn.checkClaimable(at: now)
        guard let familyID = signIn.familyID else { return .waiting(signIn) }
        let logger = logger
        do {
            return try await changeLog.write(family: familyID, as: writer) { family in
                let connection = family.connection
                // Again under the lock: two claims at once register one device.
                let rows = try await connection.rows(
                    "SELECT \(unescaped: Self.columns) FROM sign_ins WHERE code_hash = \(ByteBuffer(bytes: code.hash)) FOR UPDATE", logger: logger
                )
                // Purged, or its code drawn again after it expired: this sign-in is over.
                let over = FamilySyncError(.pairingExpired, "This sign-in expired; start again.")
                guard let row = rows.first else { throw over }
                var (signIn, secretHash) = try Self.decode(row, code: code)
                guard constantTimeEquals(secretHash.readableBytesView, secret.hash), signIn.familyID == familyID, let pairingID = signIn.pairingID,
                    let deviceID = signIn.deviceID
                else { throw over }
                try signIn.checkClaimable(at: now)
                let pairings = try await connection.rows(
                    "\(unescaped: PairingRows.select) WHERE family_id = \(familyID) AND pairing_id = \(pairingID) FOR UPDATE", logger: logger
                )
                guard var pairing = try pairings.map(PairingRows.decode).first, let emoji = pairing.verificationEmoji else {
                    throw FamilySyncError(.pairingExpired, "The parent withdrew this sign-in; start again.")
                }
                // The parent may have withdrawn the pairing (DELETE /v1/pairings/{id}) meanwhile.
                guard pairing.status(at: now) == .pending else {
                    throw FamilySyncError(.pairingExpired, "This sign-in's pairing is \(pairing.status(at: now).rawValue); start again.")
                }
                let acceptance = try await family.acceptPairing(
                    &pairing, deviceID: deviceID, emoji: emoji, name: signIn.deviceName, platform: signIn.platform, timeZone: signIn.timeZone, now: now
                )
                try await connection.rows("UPDATE sign_ins SET claimed_at = \(now) WHERE code_hash = \(ByteBuffer(bytes: code.hash))", logger: logger)
                signIn.claimedAt = now
                return .claimed(signIn, acceptance)
            }
        } catch let error as FamilySyncError where error.code == .notFound {
            // The family was deleted after the parent took the code.
            throw FamilySyncError(.pairingExpired, "The family this sign-in was for no longer exists; start again.")
        }
    }

    public static let wrongSecret = FamilySyncError.notFound("No such sign-in, or the secret does not match.")

    /// Deletes sign-ins that ended before `cutoff`, claimed or not; their codes are free again
    /// at expiry anyway, this only keeps the table small.
    public func purgeExpired(before cutoff: Date) async throws -> Int {
        let rows = try await database.rows("DELETE FROM sign_ins WHERE expires_at < \(cutoff) RETURNING code_hash", logger: logger)
        return rows.count
    }
}
