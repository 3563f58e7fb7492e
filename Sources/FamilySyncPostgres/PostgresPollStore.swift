import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// The read side of long polls (PROTOCOL §6): what a device can see that changed after a sequence.
public struct PostgresPollStore: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
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

        public var changed: Bool { !zones.isEmpty || !devices.isEmpty }
    }

    /// What `caller` sees changed after `after` (nothing is reported without it: the answer then
    /// only fixes the sequence to wait from). Reads the caller's device afresh: a device revoked
    /// or removed since its request was authenticated is `AUTHENTICATION_REQUIRED`.
    public func check(_ caller: AuthenticatedDevice, after: Int64?) async throws -> Check {
        let logger = logger
        return try await client.inSnapshot(logger: logger) { connection in
            let rows = try await connection.query(
                "SELECT role, status, changed_seq FROM devices WHERE family_id = \(caller.familyID) AND device_id = \(caller.deviceID)",
                logger: logger
            )
            guard let (roleText, statusText, deviceSequence) = try await rows.decode((String, String, Int64).self).first(where: { _ in true }),
                let role = DeviceRole(rawValue: roleText), let status = DeviceStatus(rawValue: statusText), status != .revoked
            else {
                throw FamilySyncError(.authenticationRequired, "This device's credential is no longer valid.")
            }
            guard status == .active else {
                return Check(status: status, sequence: 0, zones: [], devices: [])
            }
            let family = try await PostgresRecordStore.familySequence(caller.familyID, on: connection, logger: logger)
            guard let after else {
                return Check(status: status, sequence: family.sequence, zones: [], devices: [])
            }
            try PostgresRecordStore.checkTokenSequence(after, family: family)
            let access = ZoneAccess(AuthenticatedDevice(familyID: caller.familyID, deviceID: caller.deviceID, role: role, status: status))
            let zones = try await PostgresRecordStore.allZones(caller.familyID, on: connection, logger: logger)
                .filter { $0.changedSequence > after && (access.canRead(zone: $0.name, childDeviceID: $0.childDeviceID) || ($0.deleted && access.isParent)) }
                .sorted { ($0.changedSequence, $0.name) < ($1.changedSequence, $1.name) }
                .map(\.name)
            var devices: [UUID] = []
            if role == .parent {
                devices = try await connection.query(
                    "SELECT device_id FROM devices WHERE family_id = \(caller.familyID) AND changed_seq > \(after) ORDER BY changed_seq, device_id",
                    logger: logger
                ).decode(UUID.self).reduce(into: []) { $0.append($1) }
            } else if deviceSequence > after {
                devices = [caller.deviceID]
            }
            return Check(status: status, sequence: family.sequence, zones: zones, devices: devices)
        }
    }
}
