import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Everything the server holds about a family, or about one member of it (PROTOCOL §15.2), read
/// in one snapshot and handed on as JSON Lines a page at a time: memory stays bounded whatever the
/// family's size. PostgreSQL writes each line (`json_build_object`), so no row is decoded here.
/// No secret is read: no credential's, token's or code's hash, no push token.
public struct PostgresExport: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.database = changeLog.database
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    /// Rows a page: a page of usage records is a few hundred kilobytes.
    static let pageSize = 2000
    /// A page of records ends once its lines pass this many bytes, whatever their count.
    static let pageBytes = 4 << 20

    /// Records the export in the audit log, in its own short transaction before the export's
    /// snapshot (so that the archive holds its own entry), checking the member is the family's.
    public func begin(familyID: UUID, member memberID: UUID?, as writer: ChangeWriter) async throws {
        let now = clock.now()
        try await changeLog.write(family: familyID, as: writer) { family in
            if let memberID { _ = try await family.lockedMember(memberID) }
            try await family.audit(
                memberID == nil ? .familyExported : .memberExported, member: memberID, subjectType: memberID == nil ? "family" : "member",
                subject: memberID?.lowercased, at: now
            )
        }
    }

    /// Reads the family's (or the member's) data kind by kind, calling `emit` with each page's
    /// lines by kind (`ExportKind`); returns the family's row as a line.
    public func read(familyID: UUID, member memberID: UUID?, emit: @escaping @Sendable (_ kind: String, _ lines: [String]) async throws -> Void) async throws {
        let logger = logger
        try await database.inSnapshot(logger: logger) { connection in
            let scope = try await Scope.read(familyID: familyID, member: memberID, on: connection, logger: logger)
            for source in Self.sources(scope) {
                var after: (String, String)? = nil
                while true {
                    let rows = try await connection.rows(source.query(after, Self.pageSize), logger: logger)
                    var byKind: [String: [String]] = [:]
                    var order: [String] = []
                    for row in rows {
                        let (k1, k2, kind, line) = try row.decode((String, String, String, String).self)
                        after = (k1, k2)
                        if byKind[kind] == nil { order.append(kind) }
                        byKind[kind, default: []].append(line)
                    }
                    for kind in order { try await emit(kind, byKind[kind] ?? []) }
                    // A page cut short by its bytes is not the end: the next one starts after it.
                    if rows.isEmpty || !source.paged || rows.count < Self.pageSize && !source.bytesBounded { break }
                }
            }
        }
    }

    /// What an export covers: the family, or one member's person, devices and zones.
    struct Scope: Sendable {
        var familyID: UUID
        var memberID: UUID?
        /// The member's devices, and the zones of the member and of its devices; all of the
        /// family's when no member is named.
        var devices: [UUID]
        var zones: [String]

        static func read(familyID: UUID, member memberID: UUID?, on connection: PostgresConnection, logger: Logger) async throws -> Scope {
            guard let memberID else { return Scope(familyID: familyID, memberID: nil, devices: [], zones: []) }
            let devices = try await connection.rows(
                "SELECT device_id FROM devices WHERE family_id = \(familyID) AND member_id = \(memberID)", logger: logger
            ).map { try $0.decode(UUID.self) }
            let zones = try await connection.rows(
                """
                SELECT zone_name FROM zones
                WHERE family_id = \(familyID) AND (member_id = \(memberID) OR child_device_id = ANY(\(devices)) OR zone_name = \(Member.zoneName(of: memberID)))
                """,
                logger: logger
            ).map { try $0.decode(String.self) }
            return Scope(familyID: familyID, memberID: memberID, devices: devices, zones: zones)
        }

        /// A condition on a device-id column: every device of the family, or the member's.
        func devices(_ column: String) -> String {
            memberID == nil ? "true" : "\(column) = ANY('{\(devices.map(\.lowercased).joined(separator: ","))}'::uuid[])"
        }

        func zones(_ column: String) -> String {
            memberID == nil ? "true" : "\(column) = ANY(\(Self.textArray(zones)))"
        }

        static func textArray(_ values: [String]) -> String {
            "ARRAY[\(values.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ","))]::text[]"
        }
    }

    /// One kind of the export: a query of `(key1, key2, kind, line)` rows after the keys given,
    /// in key order; a source that is not paged is read whole (its rows are few by the limits).
    struct Source: Sendable {
        var paged: Bool
        /// Its pages may end before `limit` rows (at `pageBytes`): only an empty page ends it.
        var bytesBounded = false
        var query: @Sendable (_ after: (String, String)?, _ limit: Int) -> PostgresQuery
    }

    /// An instant as the wire writes it (§1: UTC, milliseconds, `Z`), whatever the session's zone.
    static func instant(_ column: String) -> String {
        "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
    }

    static func sources(_ scope: Scope) -> [Source] {
        let family = scope.familyID
        let registryTypes = Scope.textArray(RecordTypeRegistry.types.keys.sorted())
        let member = scope.memberID.map { "member_id = '\($0.lowercased)'" } ?? "true"
        let i = instant
        func whole(_ sql: String) -> Source {
            Source(paged: false) { _, _ in PostgresQuery(unsafeSQL: sql, binds: Self.binds(family)) }
        }
        return [
            whole(
                """
                SELECT '', '', 'members', json_build_object('id', member_id, 'name', name, 'role', role, 'createdAt', \(i("created_at")),
                    'deletedAt', \(i("deleted_at")))::text
                FROM members WHERE family_id = $1 AND \(member) ORDER BY created_at, member_id
                """
            ),
            whole(
                """
                SELECT '', '', 'devices', json_build_object('id', device_id, 'memberId', member_id, 'role', role, 'name', name, 'childName', child_name,
                    'platform', platform, 'timeZone', time_zone, 'status', status, 'tracked', tracked, 'registeredAt', \(i("registered_at")),
                    'lastSeenAt', \(i("last_seen_at")), 'lastSyncAt', \(i("last_sync_at")))::text
                FROM devices WHERE family_id = $1 AND \(scope.devices("device_id")) ORDER BY registered_at, device_id
                """
            ),
            whole(
                """
                SELECT '', '', 'pairings', json_build_object('id', pairing_id, 'role', role, 'childName', child_name, 'status', status,
                    'createdBy', created_by, 'deviceId', device_id, 'memberId', member_id, 'createdAt', \(i("created_at")),
                    'expiresAt', \(i("expires_at")), 'decidedAt', \(i("decided_at")))::text
                FROM pairings WHERE family_id = $1 AND (\(member) OR \(scope.devices("device_id"))) ORDER BY created_at, pairing_id
                """
            ),
            whole(
                """
                SELECT '', '', 'zones', json_build_object('zoneName', zone_name, 'childDeviceId', child_device_id, 'memberId', member_id,
                    'createdAt', \(i("created_at")), 'deletedAt', \(i("deleted_at")))::text
                FROM zones WHERE family_id = $1 AND \(scope.zones("zone_name")) ORDER BY zone_name
                """
            ),
            // Every live record, each type of the registry its own kind (records/UsageRecord, …);
            // a family's custom types (`x-…`, any text a parent chose) together in records/custom,
            // so that no path in the archive comes from a client. A page ends at `pageSize` rows
            // or once its lines pass `pageBytes` (a record's fields may be 256 KiB): the page's
            // first row always, then those that start within the bound. The member's PIN record
            // (its salt and PBKDF2 hash) is no data about the child and stays out.
            Source(paged: true, bytesBounded: true) { after, limit in
                PostgresQuery(
                    unsafeSQL: """
                        SELECT zone_name, record_name, kind, line FROM (
                            SELECT zone_name, record_name, kind, line,
                                coalesce(sum(octet_length(line)) OVER (ORDER BY zone_name, record_name ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
                            FROM (
                                SELECT zone_name, record_name,
                                    CASE WHEN record_type = ANY(\(registryTypes)) THEN 'records/' || record_type ELSE 'records/custom' END AS kind,
                                    json_build_object('zoneName', zone_name, 'recordName', record_name, 'recordType', record_type, 'fields', fields,
                                        'createdAt', \(i("created_at")), 'createdBy', created_by, 'modifiedAt', \(i("modified_at")),
                                        'modifiedBy', modified_by, 'modifiedRole', modified_role)::text AS line
                                FROM records
                                WHERE family_id = $1 AND NOT deleted AND \(scope.zones("zone_name")) AND (zone_name, record_name) > ($2, $3)
                                    AND NOT (record_type = '\(RecordTypeName.deviceSettings)' AND record_name = '\(ParentPIN.recordName)')
                                ORDER BY zone_name, record_name LIMIT \(limit)
                            ) page
                        ) sized
                        WHERE before < \(Self.pageBytes)
                        ORDER BY zone_name, record_name
                        """,
                    binds: Self.binds(family, after?.0 ?? "", after?.1 ?? "")
                )
            },
            whole(
                """
                SELECT '', '', 'health/status', json_build_object('deviceId', device_id, 'monitoringActive', monitoring_active,
                    'lastHeartbeatAt', \(i("last_heartbeat_at")), 'memoryUsageMB', memory_usage_mb, 'lastSequence', last_sequence, 'status', status)::text
                FROM device_health WHERE family_id = $1 AND \(scope.devices("device_id")) ORDER BY device_id
                """
            ),
            Source(paged: true) { after, limit in
                PostgresQuery(
                    unsafeSQL: """
                        SELECT device_id::text, date, 'health/days', json_build_object('deviceId', device_id, 'date', date,
                            'missedNotifications', missed_notifications, 'sequenceResets', sequence_resets)::text
                        FROM device_health_days
                        WHERE family_id = $1 AND \(scope.devices("device_id")) AND (device_id, date) > ($2::uuid, $3)
                        ORDER BY device_id, date LIMIT \(limit)
                        """,
                    binds: Self.binds(family, after?.0 ?? "00000000-0000-0000-0000-000000000000", after?.1 ?? "")
                )
            },
            Source(paged: true) { after, limit in
                PostgresQuery(
                    unsafeSQL: """
                        SELECT device_id::text, started_at::text, 'health/gaps', json_build_object('deviceId', device_id,
                            'startedAt', \(i("started_at")), 'endedAt', \(i("ended_at")))::text
                        FROM device_heartbeat_gaps
                        WHERE family_id = $1 AND \(scope.devices("device_id")) AND (device_id, started_at) > ($2::uuid, $3::timestamptz)
                        ORDER BY device_id, started_at LIMIT \(limit)
                        """,
                    binds: Self.binds(family, after?.0 ?? "00000000-0000-0000-0000-000000000000", after?.1 ?? "-infinity")
                )
            },
            whole(
                """
                SELECT '', '', 'health/errors', json_build_object('deviceId', device_id, 'id', error_id, 'timestamp', \(i("occurred_at")),
                    'eventName', event_name, 'action', action, 'success', success, 'description', description, 'memoryUsageMB', memory_usage_mb)::text
                FROM device_errors WHERE family_id = $1 AND \(scope.devices("device_id")) ORDER BY device_id, occurred_at, error_id
                """
            ),
            Source(paged: true) { after, limit in
                PostgresQuery(
                    unsafeSQL: """
                        SELECT event_id::text, '', 'audit/events', json_strip_nulls(json_build_object('id', event_id::text, 'at', \(i("at")), 'action', action,
                            'actor', json_build_object('role', actor_role, 'deviceId', actor_device_id, 'memberId', actor_member_id, 'address', address),
                            'memberId', member_id, 'subjectType', subject_type, 'subject', subject))::text
                        FROM audit_events
                        WHERE family_id = $1 AND \(member) AND event_id > $2::bigint
                        ORDER BY event_id LIMIT \(limit)
                        """,
                    binds: Self.binds(family, after?.0 ?? "0")
                )
            },
            whole(
                """
                SELECT '', '', 'audit/reads', json_build_object('date', day::text, 'memberId', reader_member_id, 'route', route, 'reads', reads)::text
                FROM audit_reads WHERE family_id = $1 AND \(scope.memberID == nil ? "true" : "reader_member_id = '\(scope.memberID!.lowercased)'")
                ORDER BY day, reader_member_id, route
                """
            ),
            whole(
                """
                SELECT '', '', 'retention', json_build_object('usageSessions', usage_sessions, 'dailyTotals', daily_totals, 'summaries', summaries,
                    'alerts', alerts, 'health', health, 'commands', commands, 'audit', audit, 'updatedAt', \(i("updated_at")))::text
                FROM family_retention WHERE family_id = $1
                """
            ),
        ]
    }

    static func binds(_ family: UUID, _ texts: String...) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(family)
        for text in texts { bindings.append(text) }
        return bindings
    }
}
