import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Zones (PROTOCOL §4): those a caller sees, a parent's own made, and one deleted with its records.
/// The writes go through the change log: a zone made or deleted is a change of the family's
/// database feed (§5.5), in its sequence.
public struct PostgresZoneStore: Sendable {
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    /// The live zones the caller sees.
    public func zones(for access: ZoneAccess) async throws -> [Zone] {
        let familyID = access.caller.familyID
        let logger = logger
        return try await changeLog.database.inSnapshot(logger: logger) { connection in
            try await ZoneRows.all(familyID, on: connection, logger: logger)
                .filter { !$0.deleted && access.canRead($0) }
        }
    }

    public func createZone(familyID: UUID, name: String, as writer: ChangeWriter) async throws -> Zone {
        let now = clock.now()
        return try await changeLog.write(family: familyID, as: writer) { family in
            try await family.createZone(name, now: now)
        }
    }

    /// Deletes a zone and its records; the zone stays as a tombstone for the database change feed.
    public func deleteZone(familyID: UUID, name: String, as writer: ChangeWriter) async throws {
        let now = clock.now()
        let logger = logger
        try await changeLog.write(family: familyID, as: writer) { family in
            // Under the family's lock: a confirmation cannot slip in after the check below.
            let zone = try await family.zone(name)
            var ownerStatus: DeviceStatus?
            if let child = zone.childDeviceID {
                ownerStatus = try await family.connection.rows(
                    "SELECT status FROM devices WHERE family_id = \(familyID) AND device_id = \(child)", logger: logger
                ).decode(String.self).first { _ in true }.flatMap(DeviceStatus.init(rawValue:))
            }
            try zone.checkDeletable(ownerStatus: ownerStatus)
            try await family.tombstoneZone(name, now: now)
        }
    }
}
