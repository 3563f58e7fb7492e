import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A child's command list (PROTOCOL §7.1), read in a snapshot. Listing can change commands
/// (`CommandListing`: expired on the way, delivered to the child asking); only then is it decided
/// again under the family's lock and written, so a parent's look at the list takes no lock.
public struct PostgresCommandReads: Sendable {
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    /// The child's commands, oldest first, filtered on the status each had on arrival.
    public func list(childID: UUID, caller: AuthenticatedDevice, status: CommandStatusFilter?, as writer: ChangeWriter) async throws -> [Command] {
        let now = clock.now()
        let logger = logger
        let familyID = caller.familyID
        let delivering = caller.deviceID == childID
        let read = try await changeLog.database.inSnapshot(logger: logger) { connection in
            let zone = try await ZoneRows.childZone(childID, of: familyID, for: .readHistory, on: connection, logger: logger)
            return try await Self.commands(in: zone, of: familyID, on: connection, locking: false, logger: logger)
        }
        let listing = try CommandListing(read.map(\.command), status: status, deliveringToTarget: delivering, at: now)
        guard !listing.changed.isEmpty else { return listing.listed }
        // The list as it stands under the lock: another writer may have moved a command since.
        return try await changeLog.write(family: familyID, as: writer) { family in
            let connection = family.connection
            let zone = try await ZoneRows.childZone(childID, of: familyID, for: .readHistory, on: connection, logger: logger)
            let stored = try await Self.commands(in: zone, of: familyID, on: connection, locking: true, logger: logger)
            let listing = try CommandListing(stored.map(\.command), status: status, deliveringToTarget: delivering, at: now)
            if !listing.changed.isEmpty {
                let createdAt = Dictionary(stored.map { ($0.command.commandID, $0.createdAt) }) { first, _ in first }
                try await family.commit(
                    listing.changed.map { $0.record(by: caller.deviceID, role: .server, createdAt: createdAt[$0.commandID] ?? $0.createdAt, at: now) },
                    into: zone
                )
            }
            return listing.listed
        }
    }

    /// The zone's live commands with their records' creation; `locking`: for the write that follows.
    static func commands(
        in zone: String, of familyID: UUID, on connection: PostgresConnection, locking: Bool, logger: Logger
    ) async throws -> [(command: Command, createdAt: Date)] {
        let rows = try await connection.rows(
            """
            SELECT \(unescaped: RecordRow.columns) FROM records
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = '\(unescaped: RecordTypeName.configurationCommand)' AND NOT deleted
            \(unescaped: locking ? "FOR UPDATE" : "")
            """,
            logger: logger
        )
        return try rows.map(RecordRow.decode).compactMap { record in Command(fields: record.fields).map { ($0, record.createdAt) } }
    }
}
