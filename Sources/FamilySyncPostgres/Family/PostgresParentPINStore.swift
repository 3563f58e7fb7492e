import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The parent PIN of a member (PROTOCOL §11): its verifier and the wrong tries of online checks
/// (`parent_pin_attempts`, which no device reads), and its `parent-pin` record, written only here,
/// which tells the member's devices that a PIN is set and nothing more.
public struct PostgresParentPINStore: Sendable {
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

    /// Keeps `pin` (already derived) as the member's verifier, writes the member's `parent-pin`
    /// record (which the member's devices sync) as the marker, and forgets earlier wrong tries and
    /// any lockout: a new PIN starts afresh.
    public func set(_ pin: ParentPIN, memberID: UUID, by caller: AuthenticatedDevice, as writer: ChangeWriter) async throws {
        let logger = logger
        let now = clock.now()
        try await changeLog.write(family: caller.familyID, as: writer) { family in
            let member = try await family.lockedMember(memberID)
            let stored = try await RecordRow.record(named: ParentPIN.recordName, inZone: member.zoneName, family: family.id, on: family.connection, logger: logger)
            let record = Record(
                recordName: ParentPIN.recordName, recordType: RecordTypeName.deviceSettings, fields: ParentPIN.markerFields(), changeTag: "", deleted: false,
                createdAt: stored?.createdAt ?? now, createdBy: stored?.createdBy ?? caller.deviceID, modifiedAt: now, modifiedBy: caller.deviceID,
                modifiedRole: WriterRole(caller.role), clientModifiedAt: now
            )
            try await family.commit([record], into: member.zoneName)
            try await family.connection.rows(
                """
                INSERT INTO parent_pin_attempts (family_id, member_id, salt, iterations, hash)
                VALUES (\(family.id), \(memberID), \(ByteBuffer(bytes: pin.salt)), \(pin.iterations), \(ByteBuffer(bytes: pin.hash)))
                ON CONFLICT (family_id, member_id) DO UPDATE
                    SET salt = EXCLUDED.salt, iterations = EXCLUDED.iterations, hash = EXCLUDED.hash,
                        failures = '{}', pending = '{}', locked_until = NULL, record_rewrite_pending = false
                """,
                logger: logger
            )
        }
    }

    /// Rewrites the `parent-pin` records that still carry a verifier (migration 0018 found them
    /// and kept their verifiers here) as the marker, through the change log, so that the member's
    /// devices sync the change and drop their copy. Run when the server starts and hourly; a
    /// record rewritten already is skipped, and a family whose rewrite fails (deleted meanwhile,
    /// say) is logged and tried again next round. Returns how many it rewrote.
    public func rewriteRecordsStillCarryingVerifiers() async throws -> Int {
        let logger = logger
        let pending = try await database.rows(
            "SELECT family_id, member_id FROM parent_pin_attempts WHERE record_rewrite_pending", logger: logger
        ).decode((UUID, UUID).self)
        var rewritten = 0
        for (familyID, memberID) in pending {
            let now = clock.now()
            do {
                if try await rewrite(familyID: familyID, memberID: memberID, at: now) { rewritten += 1 }
            } catch {
                logger.warning("a parent PIN record was not rewritten; next round tries again", metadata: ["error": "\(DatabaseErrorTranslation.describeForOperator(error))"])
            }
        }
        return rewritten
    }

    private func rewrite(familyID: UUID, memberID: UUID, at now: Date) async throws -> Bool {
        let logger = logger
        return try await changeLog.write(family: familyID, as: .server) { family -> Bool in
            let flagged = try await family.connection.rows(
                "SELECT 1 FROM parent_pin_attempts WHERE family_id = \(family.id) AND member_id = \(memberID) AND record_rewrite_pending FOR UPDATE",
                logger: logger
            )
            guard !flagged.isEmpty else { return false }
            let zone = Member.zoneName(of: memberID)
            var rewrote = false
            if let stored = try await RecordRow.record(named: ParentPIN.recordName, inZone: zone, family: family.id, on: family.connection, logger: logger),
                !stored.deleted, !ParentPIN.isMarker(stored.fields)
            {
                var marker = stored
                marker.fields = ParentPIN.markerFields()
                marker.modifiedAt = now
                marker.modifiedRole = .server
                marker.clientModifiedAt = now
                try await family.commit([marker], into: zone)
                rewrote = true
            }
            try await family.connection.rows(
                "UPDATE parent_pin_attempts SET record_rewrite_pending = false WHERE family_id = \(family.id) AND member_id = \(memberID)",
                logger: logger
            )
            return rewrote
        }
    }

    /// Clears the member's PIN: its `parent-pin` record becomes an empty tombstone, and its
    /// verifier and wrong tries are forgotten; `NOT_FOUND` while none is set.
    public func clear(memberID: UUID, by caller: AuthenticatedDevice, as writer: ChangeWriter) async throws {
        let logger = logger
        let now = clock.now()
        try await changeLog.write(family: caller.familyID, as: writer) { family in
            let member = try await family.lockedMember(memberID)
            guard let stored = try await RecordRow.record(named: ParentPIN.recordName, inZone: member.zoneName, family: family.id, on: family.connection, logger: logger),
                !stored.deleted
            else { throw FamilySyncError.notFound("This member has no PIN.") }
            try await family.commit([stored.tombstone(by: caller.deviceID, role: WriterRole(caller.role), at: now)], into: member.zoneName)
            try await family.connection.rows(
                "DELETE FROM parent_pin_attempts WHERE family_id = \(family.id) AND member_id = \(memberID)", logger: logger
            )
        }
    }

    /// Checks a PIN against the member's verifier with `matches` (PBKDF2, run by the caller off
    /// the event loop), in two short transactions so that no connection is held while it hashes
    /// (Core's `PINAttempts`): the first admits the check under the attempts row's lock
    /// (`THROTTLED` while locked out, or while checks under way fill the allowance, without
    /// hashing; `NOT_FOUND` for a member with no PIN), the second settles it.
    public func verify(memberID: UUID, familyID: UUID, matches: @Sendable (ParentPIN) async throws -> Bool) async throws -> Bool {
        let (pin, admittedAt) = try await admit(memberID: memberID, familyID: familyID)
        let valid = try await matches(pin)
        try await settle(memberID: memberID, familyID: familyID, admittedAt: admittedAt, valid: valid)
        return valid
    }

    private func admit(memberID: UUID, familyID: UUID) async throws -> (ParentPIN, Date) {
        let logger = logger
        let now = clock.now()
        return try await database.inTransaction(logger: logger) { connection in
            try await connection.rows(
                """
                INSERT INTO parent_pin_attempts (family_id, member_id)
                SELECT family_id, member_id FROM members WHERE family_id = \(familyID) AND member_id = \(memberID) AND deleted_at IS NULL
                ON CONFLICT DO NOTHING
                """,
                logger: logger
            )
            guard let attempts = try await Self.lockedAttempts(memberID: memberID, familyID: familyID, on: connection, logger: logger) else {
                throw FamilySyncError.notFound("No such member.")
            }
            if let refusal = attempts.refusal(at: now) {
                throw FamilySyncError(.throttled, refusal.reason, retryAfter: refusal.retryAfter)
            }
            var verifier = try await Self.verifier(memberID: memberID, familyID: familyID, on: connection, logger: logger)
            if verifier == nil { verifier = try await Self.adoptedVerifier(memberID: memberID, familyID: familyID, on: connection, logger: logger) }
            guard let pin = verifier else {
                throw FamilySyncError.notFound("No PIN is set for this member; a parent sets one with PUT /v1/members/{id}/pin.")
            }
            try await Self.store(attempts.admitting(at: now), memberID: memberID, familyID: familyID, on: connection, logger: logger)
            return (pin, now)
        }
    }

    private func settle(memberID: UUID, familyID: UUID, admittedAt: Date, valid: Bool) async throws {
        let logger = logger
        let now = clock.now()
        try await database.inTransaction(logger: logger) { connection in
            // Gone with its member, or reset by a new PIN meanwhile: nothing to settle.
            guard let attempts = try await Self.lockedAttempts(memberID: memberID, familyID: familyID, on: connection, logger: logger) else { return }
            let settled = attempts.settling(admittedAt: admittedAt, valid: valid, at: now)
            if settled != attempts { try await Self.store(settled, memberID: memberID, familyID: familyID, on: connection, logger: logger) }
        }
    }

    /// The member's attempts, its row locked; nil for a member that is not live (or has no row).
    static func lockedAttempts(memberID: UUID, familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> PINAttempts? {
        let rows = try await connection.rows(
            """
            SELECT a.failures, a.pending, a.locked_until FROM parent_pin_attempts a
            JOIN members m ON m.family_id = a.family_id AND m.member_id = a.member_id AND m.deleted_at IS NULL
            WHERE a.family_id = \(familyID) AND a.member_id = \(memberID)
            FOR UPDATE OF a
            """,
            logger: logger
        )
        return try rows.decode(([Date], [Date], Date?).self).first.map { PINAttempts(failures: $0.0, pending: $0.1, lockedUntil: $0.2) }
    }

    /// A verifier an instance of an earlier version wrote into the record (during a rolling
    /// upgrade), taken here and its record marked for the rewrite; nil when there is none.
    static func adoptedVerifier(memberID: UUID, familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> ParentPIN? {
        let record = try await RecordRow.record(named: ParentPIN.recordName, inZone: Member.zoneName(of: memberID), family: familyID, on: connection, logger: logger)
        guard let record, !record.deleted, record.recordType == RecordTypeName.deviceSettings, let pin = ParentPIN(legacyFields: record.fields) else { return nil }
        try await connection.rows(
            """
            UPDATE parent_pin_attempts SET salt = \(ByteBuffer(bytes: pin.salt)), iterations = \(pin.iterations), hash = \(ByteBuffer(bytes: pin.hash)),
                record_rewrite_pending = true
            WHERE family_id = \(familyID) AND member_id = \(memberID)
            """,
            logger: logger
        )
        return pin
    }

    /// The member's verifier; nil while no PIN is set.
    static func verifier(memberID: UUID, familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws -> ParentPIN? {
        let rows = try await connection.rows(
            "SELECT salt, iterations, hash FROM parent_pin_attempts WHERE family_id = \(familyID) AND member_id = \(memberID) AND hash IS NOT NULL",
            logger: logger
        )
        return try rows.decode((ByteBuffer, Int, ByteBuffer).self).first.map {
            ParentPIN(salt: Array($0.0.readableBytesView), iterations: $0.1, hash: Array($0.2.readableBytesView))
        }
    }

    static func store(_ attempts: PINAttempts, memberID: UUID, familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.rows(
            """
            UPDATE parent_pin_attempts SET failures = \(attempts.failures), pending = \(attempts.pending), locked_until = \(attempts.lockedUntil)
            WHERE family_id = \(familyID) AND member_id = \(memberID)
            """,
            logger: logger
        )
    }
}
