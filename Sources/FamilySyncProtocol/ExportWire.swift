import FamilySyncCore
import Foundation

/// `manifest.json`, the first entry of an export's archive (PROTOCOL §15.2).
public struct ExportManifest: Codable, Sendable, Equatable {
    /// Always `familysync-export`.
    public var format: String
    /// The archive's layout and its lines' members; a reader refuses a version it does not know.
    public var schemaVersion: Int
    /// `family`, or `member` for one member's export.
    public var scope: String
    public var familyId: UUID
    public var memberId: UUID?
    public var exportedAt: Date
    /// Each kind of the archive (a folder of parts `part-00001.jsonl`, …) and what a line holds.
    public var kinds: [String: String]

    public init(format: String, schemaVersion: Int, scope: String, familyId: UUID, memberId: UUID?, exportedAt: Date, kinds: [String: String]) {
        self.format = format
        self.schemaVersion = schemaVersion
        self.scope = scope
        self.familyId = familyId
        self.memberId = memberId
        self.exportedAt = exportedAt
        self.kinds = kinds
    }

    // Ids are lowercase on output (PROTOCOL §1), as in the archive's lines and its file's name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(scope, forKey: .scope)
        try container.encode(familyId.lowercased, forKey: .familyId)
        try container.encodeIfPresent(memberId?.lowercased, forKey: .memberId)
        try container.encode(exportedAt, forKey: .exportedAt)
        try container.encode(kinds, forKey: .kinds)
    }

    public static let format = "familysync-export"
    public static let schemaVersion = 1

    /// The kinds an export may hold; `records/<recordType>` for each record type present.
    public static let kinds: [String: String] = [
        "members": "A member (person): id, name, role, createdAt, deletedAt.",
        "devices": "A device: id, memberId, role, name, childName, platform, timeZone, status, tracked, registeredAt, lastSeenAt, lastSyncAt. No credential.",
        "pairings": "An invitation or sign-in and its history: id, role, childName, status, createdBy, deviceId, memberId, createdAt, expiresAt, decidedAt. No token.",
        "zones": "A record zone: zoneName, childDeviceId, memberId, createdAt, deletedAt.",
        "records/<recordType>": "A live record of that type (§5.2), of any zone: zoneName, recordName, recordType, fields, createdAt, createdBy, modifiedAt, modifiedBy, modifiedRole. Usage sessions are records/UsageRecord, daily totals records/DailyTotals, summaries records/DailySummary and records/WeeklySummary, alerts records/Alert, commands records/ConfigurationCommand, budgets, schedules, shields and app configuration their own types; a family's custom types (x-…) are together in records/custom.",
        "health/status": "A device's tracking health now (§10): deviceId, monitoringActive, lastHeartbeatAt, memoryUsageMB, lastSequence, status.",
        "health/days": "A device's day (§10): deviceId, date, missedNotifications, sequenceResets.",
        "health/gaps": "A heartbeat gap (§10): deviceId, startedAt, endedAt.",
        "health/errors": "An error of a device's monitoring extension (§10): deviceId, id, timestamp, eventName, action, success, description, memoryUsageMB.",
        "audit/events": "An audit event (§15.4), as GET /v1/audit answers it.",
        "audit/reads": "A day's count of a parent member's reads through one route (§15.4): date, memberId, route, reads.",
        "retention": "The family's own retention settings (§15.1), days per kind (null: the server's maximum), and updatedAt.",
    ]
}

extension ExportManifest {
    /// The archive's file name: `familysync-<scope>-<family or member id>-<UTC date>.tar`.
    public var fileName: String {
        "familysync-\(scope)-\((memberId ?? familyId).lowercased)-\(DailySummaryCalculator.day(of: exportedAt, in: .gmt)).tar"
    }
}

/// `counts.json`, the last entry: lines per kind. An archive without it was cut short.
public struct ExportCounts: Codable, Sendable, Equatable {
    public var lines: [String: Int]
    public var complete: Bool

    public init(lines: [String: Int], complete: Bool) {
        self.lines = lines
        self.complete = complete
    }
}
