import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Configuration commands (PROTOCOL §7.1): `ConfigurationCommand` records in the child's zone,
/// written through the record engine's `commit`, so each step reaches parents through change
/// tokens and wakes their polls, and `request_sync` wakes the child.
public struct PostgresCommandStore: Sendable {
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    /// `outbox`: push on (§12), the outbox rows of each change written with it.
    public init(database: Database, clock: any WallClock, logger: Logger, outbox: PushOutbox? = nil) {
        self.changeLog = ChangeLog(database: database, logger: logger, outbox: outbox)
        self.clock = clock
        self.logger = logger
    }

    public struct NewCommand: Sendable {
        public var commandType: String
        public var payload: [String: JSONValue]
        public var expiresInSeconds: Int
        /// `AppConfiguration` fields to upsert (by `logicalID`) in the same transaction.
        public var configuration: [[String: JSONValue]]

        public init(commandType: String, payload: [String: JSONValue], expiresInSeconds: Int, configuration: [[String: JSONValue]]) {
            self.commandType = commandType
            self.payload = payload
            self.expiresInSeconds = expiresInSeconds
            self.configuration = configuration
        }
    }

    /// A parent sends a command to an active child of its family.
    public func create(_ new: NewCommand, to childID: UUID, by parent: AuthenticatedDevice) async throws -> Command {
        let now = clock.now()
        let logger = logger
        return try await changeLog.write(family: parent.familyID) { family in
            let connection = family.connection
            let zone = try await ZoneRows.childZone(childID, of: family.id, for: .sendCommands, on: connection, logger: logger)
            let command = Command(
                commandID: UUID(), targetDeviceID: childID, commandType: new.commandType, payload: new.payload, status: .pending,
                createdAt: now, createdBy: parent.deviceID, expiresAt: now.addingTimeInterval(TimeInterval(new.expiresInSeconds))
            )
            var records = try await Self.configurationRecords(new.configuration, zone: zone, by: parent, now: now, on: connection, logger: logger)
            try await family.checkCategories(of: records) { "configuration[\($0)]" }
            records.append(Self.record(command, by: parent.deviceID, role: WriterRole(parent.role), createdAt: now, now: now))
            try await family.commit(records, into: zone)
            return command
        }
    }

    /// The child's commands, oldest first; those past `expiresAt` are expired on the way, and when
    /// the child itself asks, its pending ones become delivered. `status` filters on the status
    /// each had on arrival (after expiry, before delivery).
    public func list(childID: UUID, caller: AuthenticatedDevice, status: CommandStatusFilter?) async throws -> [Command] {
        let now = clock.now()
        let logger = logger
        return try await changeLog.write(family: caller.familyID) { family in
            let connection = family.connection
            let zone = try await ZoneRows.childZone(childID, of: family.id, for: .readHistory, on: connection, logger: logger)
            let rows = try await connection.rows(
                """
                SELECT \(unescaped: RecordRow.columns) FROM records
                WHERE family_id = \(caller.familyID) AND zone_name = \(zone) AND record_type = 'ConfigurationCommand' AND NOT deleted
                FOR UPDATE
                """,
                logger: logger
            )
            var changed: [Record] = []
            var commands: [Command] = []
            for record in try rows.map(RecordRow.decode) {
                guard let stored = Command(fields: record.fields) else { continue }
                var command = stored
                command.expireIfDue(at: now)
                let listed = status?.matches(command.status) ?? true
                // Delivered means the child has it: only what this answer hands over.
                if listed, caller.deviceID == childID, let delivered = try command.applying(.delivered, at: now) { command = delivered }
                if command != stored {
                    changed.append(Self.record(command, by: caller.deviceID, role: .server, createdAt: record.createdAt, now: now))
                }
                if listed { commands.append(command) }
            }
            if !changed.isEmpty {
                try await family.commit(changed, into: zone)
            }
            return commands.sorted { ($0.createdAt, $0.commandID.lowercased) < ($1.createdAt, $1.commandID.lowercased) }
        }
    }

    /// Applies a step to one command: a result from its target child, or a parent's cancel.
    public func apply(_ event: Command.Event, to commandID: UUID, by caller: AuthenticatedDevice) async throws -> Command {
        let now = clock.now()
        let logger = logger
        return try await changeLog.write(family: caller.familyID) { family in
            let rows = try await family.connection.rows(
                """
                SELECT zone_name, \(unescaped: RecordRow.columns) FROM records
                WHERE family_id = \(caller.familyID) AND record_name = \(Command.recordName(commandID))
                  AND record_type = 'ConfigurationCommand' AND NOT deleted
                FOR UPDATE
                """,
                logger: logger
            )
            let found = try rows.map { row in (try row.makeRandomAccess()["zone_name"].decode(String.self), try RecordRow.decode(row)) }
            // Another device's command is none of a child's business: as if it did not exist.
            guard let (zone, record) = found.first, let stored = Command(fields: record.fields),
                caller.role == .parent || stored.targetDeviceID == caller.deviceID
            else {
                throw FamilySyncError.notFound("No such command.")
            }
            guard let command = try stored.applying(event, at: now) else { return stored }
            let written = Self.record(command, by: caller.deviceID, role: WriterRole(caller.role), createdAt: record.createdAt, now: now)
            try await family.commit([written], into: zone)
            return command
        }
    }

    // MARK: - Helpers

    static func record(_ command: Command, by device: UUID, role: WriterRole, createdAt: Date, now: Date) -> Record {
        Record(
            recordName: command.recordName, recordType: "ConfigurationCommand", fields: command.fields, changeTag: "", deleted: false,
            createdAt: createdAt, createdBy: command.createdBy, modifiedAt: now, modifiedBy: device, modifiedRole: role, clientModifiedAt: now
        )
    }

    /// The `AppConfiguration` records a command carries: each replaces the zone's record of the
    /// same `logicalID`, or is a new record `config-<uuid>`.
    static func configurationRecords(
        _ configuration: [[String: JSONValue]], zone: String, by parent: AuthenticatedDevice, now: Date, on connection: PostgresConnection, logger: Logger
    ) async throws -> [Record] {
        guard !configuration.isEmpty else { return [] }
        let ids = configuration.compactMap { fields -> String? in if case .string(let id)? = fields["logicalID"] { id } else { nil } }
        let rows = try await connection.rows(
            """
            SELECT fields ->> 'logicalID' AS logical_id, \(unescaped: RecordRow.columns) FROM records
            WHERE family_id = \(parent.familyID) AND zone_name = \(zone) AND record_type = 'AppConfiguration'
              AND fields ->> 'logicalID' = ANY(\(ids)) FOR UPDATE
            """,
            logger: logger
        )
        var existing: [String: Record] = [:]
        for (id, record) in try rows.map({ row in (try row.makeRandomAccess()["logical_id"].decode(String.self), try RecordRow.decode(row)) }) {
            existing[id] = existing[id] ?? record
        }
        return try configuration.enumerated().map { index, fields in
            guard case .string(let id)? = fields["logicalID"] else {
                throw FamilySyncError.badRequest("logicalID is required.", field: "configuration[\(index)].logicalID")
            }
            let stored = existing[id]
            return Record(
                recordName: stored?.recordName ?? "config-\(UUID().lowercased)", recordType: "AppConfiguration", fields: fields, changeTag: "",
                deleted: false, createdAt: stored.map { $0.deleted ? now : $0.createdAt } ?? now, createdBy: stored?.createdBy ?? parent.deviceID,
                modifiedAt: now, modifiedBy: parent.deviceID, modifiedRole: WriterRole(parent.role), clientModifiedAt: now
            )
        }
    }
}
