import FamilySyncCore
import Foundation
import PostgresNIO

/// The quiet heartbeat (`PostgresHealthIntake.quietHeartbeat`): the device's `device_health` row
/// updated only while `HeartbeatRules.QuietHeartbeat` admits it, and the `health` record read back
/// when the answer needs it. Every tracked device sends one every 30 s, so it is prepared once per
/// connection: unnamed, PostgreSQL parsed and planned this statement each time.
struct QuietHeartbeatStatement: RowStatement {
    static let name = "familysync_quiet_heartbeat"
    static let sql = """
        WITH before AS (
            SELECT h.family_id, h.device_id, h.last_heartbeat_at FROM device_health h
            WHERE h.family_id = $1 AND h.device_id = $2
              AND h.monitoring_active = $3 AND h.status = $4
              AND h.last_heartbeat_at >= $5 AND h.last_heartbeat_at <= $6
              AND h.record_written_at > $7
              AND h.record_day_end > $8
              -- The same number or the next, as a difference: a row kept from before §10's
              -- range was checked may hold the largest bigint, which + 1 would overflow.
              AND ($9::bigint IS NULL OR h.last_sequence IS NULL OR $9::bigint - h.last_sequence IN (0, 1))
            FOR UPDATE OF h
        ), updated AS (
            UPDATE device_health h SET last_heartbeat_at = $6, memory_usage_mb = COALESCE($10, h.memory_usage_mb),
                last_sequence = COALESCE($9::bigint, h.last_sequence),
                app_version = COALESCE($11, h.app_version), os_version = COALESCE($12, h.os_version),
                -- What HealthTally.heartbeat adds, in SQL (its bounds as parameters), until a
                -- full report folds it into the day's row. The interval is at most 300 s
                -- here (lastHeartbeatAfter), so three buckets hold it. Counts stop at
                -- HealthTally.maximumCount ($13), as the day's do.
                pending_heartbeats = least(h.pending_heartbeats::bigint + 1, $13),
                pending_monitored_seconds = h.pending_monitored_seconds
                    + CASE WHEN h.monitoring_active THEN extract(epoch FROM $6 - h.last_heartbeat_at)::float8 ELSE 0 END,
                pending_stale_seconds = h.pending_stale_seconds
                    + CASE WHEN h.monitoring_active THEN greatest(0, extract(epoch FROM $6 - h.last_heartbeat_at)::float8 - $14) ELSE 0 END,
                pending_gaps_60 = least(h.pending_gaps_60::bigint
                    + (h.monitoring_active AND extract(epoch FROM $6 - h.last_heartbeat_at) <= $15)::int, $13),
                pending_gaps_120 = least(h.pending_gaps_120::bigint
                    + (h.monitoring_active AND extract(epoch FROM $6 - h.last_heartbeat_at) > $15
                       AND extract(epoch FROM $6 - h.last_heartbeat_at) <= $16)::int, $13),
                pending_gaps_300 = least(h.pending_gaps_300::bigint
                    + (h.monitoring_active AND extract(epoch FROM $6 - h.last_heartbeat_at) > $16)::int, $13)
            -- The family by value, here and in the join below (docs/operations.md, Citus rule 2):
            -- joined only to the CTE, Citus ran this on every shard of device_health.
            FROM before WHERE h.family_id = $1 AND h.device_id = $2 AND before.device_id = h.device_id
            RETURNING h.family_id, h.memory_usage_mb, before.last_heartbeat_at AS previous
        )
        SELECT u.previous, u.memory_usage_mb, CASE WHEN $17 THEN r.fields END AS fields FROM updated u
        JOIN records r ON r.family_id = $1 AND r.zone_name = $18 AND r.record_name = $19 AND NOT r.deleted
        """
    /// The types the statement's parameters had when it ran unnamed, each bound by its Swift type.
    static let bindingDataTypes: [PostgresDataType] = [
        .uuid, .uuid, .bool, .text, .timestamptz, .timestamptz, .timestamptz, .timestamptz, .int8, .float8, .text, .text, .int8,
        .float8, .float8, .float8, .bool, .text, .text,
    ]

    let quiet: HeartbeatRules.QuietHeartbeat
    let familyID: UUID
    let deviceID: UUID
    /// The device's zone, where its `health` record is.
    let zone: String
    /// Whether the `health` record's fields are read back.
    let answering: Bool

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 19)
        bindings.append(familyID)
        bindings.append(deviceID)
        bindings.append(quiet.monitoringActive)
        bindings.append(quiet.status.rawValue)
        bindings.append(quiet.lastHeartbeatAfter)
        bindings.append(quiet.now)
        bindings.append(quiet.recordWrittenAfter)
        bindings.append(quiet.recordDayEndAfter)
        bindings.append(quiet.sequence)
        bindings.append(quiet.memoryUsageMB)
        bindings.append(quiet.appVersion)
        bindings.append(quiet.osVersion)
        bindings.append(HealthTally.maximumCount)
        bindings.append(HeartbeatRules.staleAfter)
        bindings.append(HealthTally.gapBounds[0])
        bindings.append(HealthTally.gapBounds[1])
        bindings.append(answering)
        bindings.append(zone)
        bindings.append(DeviceHealth.recordName)
        return bindings
    }
}
