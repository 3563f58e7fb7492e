import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Configuration commands sent and answered (PROTOCOL §7.1): `ConfigurationCommand` records in
/// the child's zone, committed through the change log, so each step reaches parents through change
/// tokens and wakes their polls, and `request_sync` wakes the child. The steps are Core's
/// (`Command.applying`).
public struct PostgresCommandWrites: Sendable {
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    public typealias NewCommand = Command.Draft

    /// A parent sends a command to an active child of its family.
    public func create(_ new: NewCommand, to childID: UUID, by parent: AuthenticatedDevice, as writer: ChangeWriter) async throws -> Command {
        let now = clock.now()
        let logger = logger
        return try await changeLog.write(family: parent.familyID, as: writer) { family in
            let connection = family.connection
            let zone = try await ZoneRows.childZone(childID, of: family.id, for: .sendCommands, on: connection, logger: logger)
            let command = Command.sent(
                new.commandType, payload: new.payload, expiresIn: new.expiresInSeconds, to: childID, by: parent.deviceID, at: now
            )
            var records = try Command.configurationRecords(
                new.configuration, existing: try await Self.configurations(new.configuration, in: zone, of: family.id, on: connection, logger: logger),
                by: parent, at: now
            )
            try await family.checkCategories(of: records) { "configuration[\($0)]" }
            records.append(command.record(by: parent.deviceID, role: WriterRole(parent.role), createdAt: now, at: now))
            try await family.commit(records, into: zone)
            return command
        }
    }

    /// Applies a step to one command: a result from its target child, or a parent's cancel.
    public func apply(_ event: Command.Event, to commandID: UUID, by caller: AuthenticatedDevice, as writer: ChangeWriter) async throws -> Command {
        let now = clock.now()
        let logger = logger
        return try await changeLog.write(family: caller.familyID, as: writer) { family in
            let rows = try await family.connection.rows(
                """
                SELECT zone_name, \(unescaped: RecordRow.columns) FROM records
                WHERE family_id = \(caller.familyID) AND record_name = \(Command.recordName(commandID))
                  AND record_type = '\(unescaped: RecordTypeName.configurationCommand)' AND NOT deleted
                FOR UPDATE
                """,
                logger: logger
            )
            let found = try rows.map { row in (try row.makeRandomAccess()["zone_name"].decode(String.self), try RecordRow.decode(row)) }
            guard let (zone, record) = found.first, let stored = Command(fields: record.fields), stored.concerns(caller) else {
                throw FamilySyncError.notFound("No such command.")
            }
            guard let command = try stored.applying(event, at: now) else { return stored }
            try await family.commit([command.record(by: caller.deviceID, role: WriterRole(caller.role), createdAt: record.createdAt, at: now)], into: zone)
            return command
        }
    }

    /// The zone's `AppConfiguration` records (tombstones included) of the `logicalID`s the
    /// configuration names, by `logicalID`, locked for the write.
    static func configurations(
        _ configuration: [[String: JSONValue]], in zone: String, of familyID: UUID, on connection: PostgresConnection, logger: Logger
    ) async throws -> [String: Record] {
        guard !configuration.isEmpty else { return [:] }
        let rows = try await connection.rows(
            """
            SELECT fields ->> 'logicalID' AS logical_id, \(unescaped: RecordRow.columns) FROM records
            WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = '\(unescaped: RecordTypeName.appConfiguration)'
              AND fields ->> 'logicalID' = ANY(\(Command.logicalIDs(of: configuration))) FOR UPDATE
            """,
            logger: logger
        )
        var existing: [String: Record] = [:]
        for (id, record) in try rows.map({ row in (try row.makeRandomAccess()["logical_id"].decode(String.self), try RecordRow.decode(row)) }) {
            existing[id] = existing[id] ?? record
        }
        return existing
    }
}
