import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// How members are read, by the stores and the change log alike.
enum MemberRows {
    static func decode(_ row: PostgresRow) throws -> Member {
        let cells = row.makeRandomAccess()
        return Member(
            id: try cells["member_id"].decode(UUID.self), familyID: try cells["family_id"].decode(UUID.self), name: try cells["name"].decode(String.self),
            role: DeviceRole(rawValue: try cells["role"].decode(String.self)) ?? .child, deviceIDs: try cells["device_ids"].decode([UUID].self),
            createdAt: try cells["created_at"].decode(Date.self)
        )
    }

    /// `NOT_FOUND` unless the member is a live one of the family.
    static func checkLive(_ memberID: UUID, of familyID: UUID, on connection: PostgresConnection, logger: Logger) async throws {
        let exists = try await connection.rows(
            "SELECT 1 FROM members WHERE family_id = \(familyID) AND member_id = \(memberID) AND deleted_at IS NULL", logger: logger
        )
        guard !exists.isEmpty else { throw FamilySyncError.notFound("No such member.") }
    }

    /// The member's days (every device of the member that has a zone of its own: it is, or was,
    /// tracked), on a connection whose transaction the caller runs.
    static func days(familyID: UUID, memberID: UUID, dates: [String], on connection: PostgresConnection, logger: Logger) async throws -> [MemberDay] {
        let rows = try await connection.rows(
            """
            SELECT d.device_id, d.platform, r.fields
            FROM devices d
            JOIN zones z ON z.family_id = d.family_id AND z.child_device_id = d.device_id AND z.deleted_at IS NULL
            LEFT JOIN records r ON r.family_id = z.family_id AND r.zone_name = z.zone_name AND r.record_type = '\(unescaped: RecordTypeName.dailySummary)'
                AND r.record_name = ANY(\(dates.map(DailySummary.recordName))) AND NOT r.deleted
            WHERE d.family_id = \(familyID) AND d.member_id = \(memberID)
            ORDER BY d.registered_at, d.device_id
            """,
            logger: logger
        )
        var devices: [(id: UUID, platform: DevicePlatform)] = []
        var summaries: [UUID: [String: DailySummary]] = [:]
        for (id, platform, fields) in try rows.decode((UUID, String, RecordFields?).self) {
            if !devices.contains(where: { $0.id == id }) { devices.append((id, DevicePlatform(rawValue: platform) ?? .other)) }
            if let summary = fields.flatMap({ DailySummary(fields: $0.value) }) { summaries[id, default: [:]][summary.date] = summary }
        }
        return dates.map { date in
            MemberDay(date: date, devices: devices.map { MemberDay.DeviceDay(deviceID: $0.id, platform: $0.platform, summary: summaries[$0.id]?[date]) })
        }
    }
}

extension PostgresQuery.StringInterpolation {
    /// `SELECT … FROM members m` of the family `familyID`, as `MemberRows.decode` reads it; the
    /// caller adds the WHERE. The devices' subquery names the family by its value, not by
    /// `m.family_id`: Citus runs a read that locks (`FOR UPDATE OF m`) only if it can route every
    /// table in it to one shard, and it sees that only of a table filtered by a value.
    mutating func appendInterpolation(membersOf familyID: UUID) {
        appendLiteral("SELECT m.member_id, m.family_id, m.name, m.role, m.created_at, ARRAY(SELECT d.device_id FROM devices d WHERE d.family_id = ")
        appendInterpolation(familyID)
        appendLiteral(" AND d.member_id = m.member_id ORDER BY d.registered_at, d.device_id) AS device_ids FROM members m")
    }
}
