import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// What a device shields (PROTOCOL §11): its member's schedules, its configured blocking and its
/// executed block and unblock commands, read in one snapshot and handed to Core's `ShieldState`.
public struct PostgresShieldStore: Sendable {
    let database: Database
    let logger: Logger

    public init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// The state of `deviceID` (a child of the family, or a tracked parent's device) at `instant`
    /// in its time zone.
    public func shieldState(of deviceID: UUID, familyID: UUID, at instant: Date) async throws -> (state: ShieldState, blocked: BlockedApps) {
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            let zone = try await ZoneRows.childZone(deviceID, of: familyID, for: .readHistory, on: connection, logger: logger)
            let rows = try await connection.rows("SELECT time_zone, member_id FROM devices WHERE family_id = \(familyID) AND device_id = \(deviceID)", logger: logger)
            guard let (zoneName, member) = try rows.decode((String, UUID?).self).first else { throw FamilySyncError.notFound("No such child device.") }
            var schedules: [[String: JSONValue]] = []
            if let member {
                schedules = try await RecordRow.fields(ofType: RecordTypeName.schedule, inZone: Member.zoneName(of: member), family: familyID, on: connection, logger: logger)
            }
            let configured = try await RecordRow.fields(ofType: RecordTypeName.appConfiguration, inZone: zone, family: familyID, on: connection, logger: logger)
                .filter { $0["blockingEnabled"] == .bool(true) }
                .compactMap { if case .string(let id)? = $0["logicalID"] { id } else { nil } }
            let commands = try await connection.rows(
                """
                SELECT fields FROM records
                WHERE family_id = \(familyID) AND zone_name = \(zone) AND record_type = '\(unescaped: RecordTypeName.configurationCommand)' AND NOT deleted
                  AND fields ->> 'status' = 'executed' AND fields ->> 'commandType' IN ('block', 'unblock')
                """,
                logger: logger
            ).map { try $0.decode(RecordFields.self).value }.compactMap(Command.init(fields:))
            let blocked = BlockedApps.at(instant, configuredBlocked: Set(configured), commands: commands)
            let state = ShieldState.at(
                instant, schedules: schedules.compactMap(Schedule.init(fields:)), blockedApps: blocked.applications, timeZone: TimeZone(identifier: zoneName) ?? .gmt
            )
            return (state, blocked)
        }
    }
}
