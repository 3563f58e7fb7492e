import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The parent PIN of a member (PROTOCOL §11): its `parent-pin` record, written only here, and the
/// wrong tries of online checks (`parent_pin_attempts`).
public struct PostgresParentPINStore: Sendable {
    let client: PostgresClient
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    public init(client: PostgresClient, clock: any WallClock, logger: Logger) {
        self.client = client
        self.changeLog = ChangeLog(client: client, logger: logger)
        self.clock = clock
        self.logger = logger
    }

    /// Writes `pin` (already derived) as the member's `parent-pin` record, which the member's
    /// devices sync, and forgets earlier wrong tries and any lockout: a new PIN starts afresh.
    public func set(_ pin: ParentPIN, memberID: UUID, by caller: AuthenticatedDevice) async throws {
        let logger = logger
        let now = clock.now()
        try await changeLog.write(family: caller.familyID) { family in
            let member = try await PostgresMemberStore.locked(memberID, in: family, logger: logger)
            let stored = try await RecordRow.record(named: ParentPIN.recordName, inZone: member.zoneName, family: family.id, on: family.connection, logger: logger)
            let record = Record(
                recordName: ParentPIN.recordName, recordType: "DeviceSettings", fields: pin.fields, changeTag: "", deleted: false,
                createdAt: stored?.createdAt ?? now, createdBy: stored?.createdBy ?? caller.deviceID, modifiedAt: now, modifiedBy: caller.deviceID,
                modifiedRole: WriterRole(caller.role), clientModifiedAt: now
            )
            try await family.commit([record], into: member.zoneName)
            try await family.connection.query(
                "DELETE FROM parent_pin_attempts WHERE family_id = \(family.id) AND member_id = \(memberID)", logger: logger
            )
        }
    }

    /// Checks a PIN against the member's record with `matches` (run by the caller, off the event
    /// loop), under the member's attempts row lock so that concurrent wrong tries count one by
    /// one. `THROTTLED` while locked out, without running `matches`; `NOT_FOUND` for a member with
    /// no PIN.
    public func verify(memberID: UUID, familyID: UUID, matches: @escaping @Sendable (ParentPIN) async throws -> Bool) async throws -> Bool {
        let logger = logger
        let now = clock.now()
        return try await client.inTransaction(logger: logger) { connection in
            try await connection.query(
                """
                INSERT INTO parent_pin_attempts (family_id, member_id)
                SELECT family_id, member_id FROM members WHERE family_id = \(familyID) AND member_id = \(memberID) AND deleted_at IS NULL
                ON CONFLICT DO NOTHING
                """,
                logger: logger
            )
            let rows = try await connection.query(
                """
                SELECT a.failures, a.locked_until FROM parent_pin_attempts a
                JOIN members m ON m.family_id = a.family_id AND m.member_id = a.member_id AND m.deleted_at IS NULL
                WHERE a.family_id = \(familyID) AND a.member_id = \(memberID)
                FOR UPDATE OF a
                """,
                logger: logger
            )
            guard let (failures, lockedUntil) = try await rows.decode(([Date], Date?).self).first(where: { _ in true }) else {
                throw FamilySyncError.notFound("No such member.")
            }
            let attempts = PINAttempts(failures: failures, lockedUntil: lockedUntil)
            if let retryAfter = attempts.retryAfter(at: now) {
                throw FamilySyncError(.throttled, "Too many wrong PINs; try again in \(retryAfter) seconds.", retryAfter: retryAfter)
            }
            let record = try await RecordRow.record(named: ParentPIN.recordName, inZone: Member.zoneName(of: memberID), family: familyID, on: connection, logger: logger)
            guard let record, record.recordType == "DeviceSettings", let pin = ParentPIN(fields: record.fields) else {
                throw FamilySyncError.notFound("No PIN is set for this member; a parent sets one with PUT /v1/members/{id}/pin.")
            }
            let valid = try await matches(pin)
            let next = attempts.recording(valid: valid, at: now)
            if next != attempts {
                try await connection.query(
                    """
                    UPDATE parent_pin_attempts SET failures = \(next.failures), locked_until = \(next.lockedUntil)
                    WHERE family_id = \(familyID) AND member_id = \(memberID)
                    """,
                    logger: logger
                )
            }
            return valid
        }
    }
}
