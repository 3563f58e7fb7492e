import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Devices and their credentials. Every query is bounded by the caller's family: an id of another
/// family is simply not found.
public struct PostgresDeviceStore: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger
    /// What this instance knows of devices it authenticated lately (nil: every request reads them).
    let knownDevices: KnownDevices?

    /// `lastSeenAt` is written at most this often per device, not on every request.
    public static let lastSeenGranularity: TimeInterval = 60

    /// `changeLog`: the one every store writes through (`ServerDependencies` makes it).
    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.database = changeLog.database
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
        self.knownDevices = changeLog.knownDevices
    }

    /// The device a credential belongs to, if the credential is its current one and it is not revoked.
    /// Found by primary key, or in `knownDevices`; the hashes are compared in constant time.
    /// Refreshes `lastSeenAt` when it is older than `lastSeenGranularity`.
    public func authenticate(_ credential: DeviceCredential) async throws -> AuthenticatedDevice? {
        let now = clock.now()
        if let known = knownDevices?.device(for: credential, now: now) { return known }
        let epoch = knownDevices?.epoch
        let logger = logger
        // A device awaiting confirmation holds its credential only while its pairing can still be
        // confirmed: once that expired (confirm answers 410), the credential is refused as a
        // revoked one is. The pairing is looked up by the credential's family, not by the
        // device row's: on Citus a correlated column would plan the subquery on every shard.
        let rows = try await database.rows(
            """
            SELECT d.role, d.status, d.credential_hash, d.last_seen_at, d.member_id, d.tracked,
                   d.status <> 'awaiting_confirmation' OR EXISTS (
                       SELECT 1 FROM pairings p
                       WHERE p.family_id = \(credential.familyID) AND p.device_id = \(credential.deviceID)
                         AND p.status = 'accepted' AND p.expires_at > \(now)
                   )
            FROM devices d
            WHERE d.family_id = \(credential.familyID) AND d.device_id = \(credential.deviceID)
            """,
            logger: logger
        )
        let hash = credential.hash
        guard let (role, status, storedHash, lastSeenAt, memberID, tracked, pairingLive) = try rows.first.map({ try $0.decode((String, String, ByteBuffer?, Date?, UUID?, Bool, Bool).self) }),
            let storedHash, constantTimeEquals(storedHash.readableBytesView, hash),
            let role = DeviceRole(rawValue: role), let status = DeviceStatus(rawValue: status), status != .revoked, pairingLive
        else { return nil }
        var seenAt = lastSeenAt ?? now
        if lastSeenAt.map({ now.timeIntervalSince($0) >= Self.lastSeenGranularity }) ?? true {
            try await database.rows(
                "UPDATE devices SET last_seen_at = \(now) WHERE family_id = \(credential.familyID) AND device_id = \(credential.deviceID)",
                logger: logger
            )
            seenAt = now
        }
        let device = AuthenticatedDevice(familyID: credential.familyID, deviceID: credential.deviceID, role: role, status: status, memberID: memberID, tracked: tracked)
        // An awaiting device is asked about each time: its pairing's expiry is not in the cache.
        if status == .active { knownDevices?.remember(device, hash: hash, seenAt: seenAt, epoch: epoch) }
        return device
    }

    /// A device fetched changes (PROTOCOL §2's `lastSyncAt`): now, written at most once every
    /// `lastSeenGranularity`, so that polling clients do not turn every fetch into a write (nor,
    /// when this instance wrote it lately, into a statement).
    public func markSynced(familyID: UUID, deviceID: UUID) async throws {
        let now = clock.now()
        let granularity = Self.lastSeenGranularity
        if knownDevices?.syncMarkedRecently(familyID: familyID, deviceID: deviceID, now: now, granularity: granularity) == true { return }
        try await database.rows(
            """
            UPDATE devices SET last_sync_at = \(now)
            WHERE family_id = \(familyID) AND device_id = \(deviceID)
              AND (last_sync_at IS NULL OR last_sync_at <= \(now.addingTimeInterval(-granularity)))
            """,
            logger: logger
        )
        knownDevices?.syncMarked(familyID: familyID, deviceID: deviceID, at: now)
    }

    /// Every device of the family, or only `onlyDevice`; oldest first.
    public func list(familyID: UUID, onlyDevice: UUID? = nil) async throws -> [Device] {
        try await database.rows(
            """
            \(unescaped: DeviceRow.select)
            WHERE family_id = \(familyID) AND (\(onlyDevice)::uuid IS NULL OR device_id = \(onlyDevice))
            ORDER BY registered_at, device_id
            """,
            logger: logger
        ).map(DeviceRow.decode)
    }

    public func get(familyID: UUID, deviceID: UUID) async throws -> Device {
        guard let device = try await list(familyID: familyID, onlyDevice: deviceID).first else {
            throw FamilySyncError.notFound("No such device.")
        }
        return device
    }

    /// Changes the members given; `childName` only on a child device. Tracking a parent device
    /// (§8) gives it its zone `device-<id>` the first time; untracking stops its uploads and keeps
    /// what it uploaded.
    public func update(familyID: UUID, deviceID: UUID, name: String?, childName: String?, timeZone: String?, tracked: Bool? = nil, as writer: ChangeWriter) async throws -> Device {
        let now = clock.now()
        return try await changeLog.write(family: familyID, as: writer) { family in
            let (device, newZone) = try await family.lockedDevice(deviceID).updated(name: name, childName: childName, timeZone: timeZone, tracked: tracked)
            if let newZone { try await family.createDeviceZone(newZone, for: deviceID, now: now) }
            try await family.updateDevice(device)
            return device
        }
    }

    /// Revokes at once (the credential is erased). With `purge`, the device is erased: its row,
    /// its zone and everything in it, and every row naming it (§15.3), in this one transaction. The family's last active parent cannot be revoked: delete the family instead.
    public func revoke(familyID: UUID, deviceID: UUID, purge: Bool, as writer: ChangeWriter) async throws {
        let logger = logger
        let now = clock.now()
        try await changeLog.write(family: familyID, as: writer) { family in
            let connection = family.connection
            let device = try await family.lockedDevice(deviceID)
            if device.needsAnotherParent {
                let others = try await connection.rows(
                    """
                    SELECT count(*)::int FROM devices
                    WHERE family_id = \(familyID) AND role = 'parent' AND status = 'active' AND device_id <> \(deviceID)
                    """,
                    logger: logger
                ).decode(Int.self).first { _ in true } ?? 0
                try device.checkRevocable(otherActiveParents: others)
            }
            try await family.revokeDevice(deviceID)
            // An invitation it accepted and nobody decided on is decided now.
            try await connection.rows(
                """
                UPDATE pairings SET status = 'revoked', decided_at = \(now)
                WHERE family_id = \(familyID) AND device_id = \(deviceID) AND status = 'accepted'
                """,
                logger: logger
            )
            if purge {
                // Erased from every table (§15.3); the entry names its member, not the device, and
                // is written first, so that the erasure takes the device out of its actor too (a
                // parent may purge its own phone).
                try await family.audit(.devicePurged, member: device.memberID, subjectType: "device", at: now)
                try await family.erase(devices: [deviceID], member: nil)
            } else {
                try await family.audit(.deviceRevoked, member: device.memberID, subjectType: "device", subject: deviceID.lowercased, at: now)
            }
        }
    }

    /// A new credential; the old one stops working at once, on every instance as soon as the
    /// notice reaches it (the notice changes nothing a poll answers).
    public func rotateCredential(familyID: UUID, deviceID: UUID, as writer: ChangeWriter) async throws -> DeviceCredential {
        let credential = DeviceCredential.generate(familyID: familyID, deviceID: deviceID)
        try await changeLog.write(family: familyID, as: writer) { family in
            try await family.rotateCredential(of: deviceID, to: credential.hash)
        }
        return credential
    }
}
