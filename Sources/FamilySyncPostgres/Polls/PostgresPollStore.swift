import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The read side of long polls (PROTOCOL §6): what a device can see that changed after a sequence.
public struct PostgresPollStore: Sendable {
    let database: Database
    let logger: Logger
    /// Whether the poll's read runs as a named prepared statement (`RowStatement.rows`).
    let preparedStatements: Bool

    public init(database: Database, logger: Logger, preparedStatements: Bool = true) {
        self.preparedStatements = preparedStatements
        self.database = database
        self.logger = logger
    }

    public struct Check: Sendable, Equatable {
        /// The caller's status now: active, or still awaiting confirmation.
        public var status: DeviceStatus
        /// The family's sequence in the snapshot read; 0 for a device awaiting confirmation,
        /// which has seen nothing (schema 0004).
        public var sequence: Int64
        /// Zones the caller sees that changed after the sequence asked about, deleted ones included.
        public var zones: [String]
        /// Devices the caller sees whose status, role or name changed after it, or that are new.
        public var devices: [UUID]
        /// The read marked the caller's push registration as held by this poll (§12).
        public var holding = false

        public var changed: Bool { !zones.isEmpty || !devices.isEmpty }
    }

    /// What `caller` sees changed after `after` (nothing is reported without it: the answer then
    /// only fixes the sequence to wait from). Reads the caller's device afresh: a device revoked
    /// or removed since its request was authenticated is `AUTHENTICATION_REQUIRED`.
    ///
    /// One statement, so one snapshot and one round trip: a woken poll answers sooner, and ten
    /// thousand of them woken at once (the listener reconnected) cost ten thousand single reads.
    /// A poll that marks a push registration (`holdUntil`, only with push on, on its first read)
    /// sends the mark before it, on the same connection: two round trips then.
    ///
    /// `holdUntil` marks the caller's push registration, if it has one, as held by a poll until
    /// then (§12: nothing is pushed to a device a poll will tell); `release` ends the mark.
    public func check(_ caller: AuthenticatedDevice, after: Int64?, holdUntil: Date? = nil) async throws -> Check {
        let statement = PollCheckStatement(familyID: caller.familyID, deviceID: caller.deviceID, since: after ?? Int64.max)
        let hold = holdUntil.map { PushHoldStatement(holdUntil: $0, familyID: caller.familyID, deviceID: caller.deviceID) }
        let (logger, prepared) = (logger, preparedStatements)
        let (holding, rows) = try await database.leasing { connection in
            var held = false
            if let hold { try await hold.forEachRow(on: connection, prepared: prepared, logger: logger) { _ in held = true } }
            var rows: [PostgresRow] = []
            try await statement.forEachRow(on: connection, prepared: prepared, logger: logger) { rows.append($0) }
            return (held, rows)
        }
        typealias Row = (String, String, Int64, Int64, Int64, [String], [String], [Bool], [String], UUID?, Bool, [UUID])
        guard let row = try rows.first.map({ try $0.decode(Row.self) }),
            let role = DeviceRole(rawValue: row.0), let status = DeviceStatus(rawValue: row.1), status != .revoked
        else {
            throw FamilySyncError(.authenticationRequired, "This device's credential is no longer valid.")
        }
        guard status == .active else {
            return Check(status: status, sequence: 0, zones: [], devices: [], holding: holding)
        }
        let family = ChangeLogPosition(sequence: row.3, horizon: row.4)
        guard let after else {
            return Check(status: status, sequence: family.sequence, zones: [], devices: [], holding: holding)
        }
        try family.checkDatabaseToken(after)
        let access = ZoneAccess(AuthenticatedDevice(familyID: caller.familyID, deviceID: caller.deviceID, role: role, status: status, memberID: row.9, tracked: row.10))
        var zones: [String] = []
        for index in row.5.indices {
            let (name, deleted) = (row.5[index], row.7[index])
            if access.canRead(zone: name, childDeviceID: UUID(uuidString: row.6[index]), memberID: UUID(uuidString: row.8[index])) || (deleted && access.isParent) {
                zones.append(name)
            }
        }
        let devices = role == .parent ? row.11 : (row.2 > after ? [caller.deviceID] : [])
        return Check(status: status, sequence: family.sequence, zones: zones, devices: devices, holding: holding)
    }

    /// Ends a poll's mark on the caller's push registration, unless a newer poll marked it since.
    public func release(_ caller: AuthenticatedDevice, heldUntil: Date) async throws {
        try await database.rows(
            """
            UPDATE device_push_tokens SET poll_held_until = NULL
            WHERE family_id = \(caller.familyID) AND device_id = \(caller.deviceID) AND poll_held_until = \(heldUntil)
            """,
            logger: logger
        )
    }
}
