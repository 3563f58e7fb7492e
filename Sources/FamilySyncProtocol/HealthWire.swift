import FamilySyncCore
import Foundation

/// `POST /v1/devices/me/health` (PROTOCOL §10): a heartbeat, and the extension's errors since the
/// last report.
public struct HealthReportRequest: Codable, Sendable, Equatable {
    public var heartbeatAt: Date
    public var monitoringActive: Bool
    public var memoryUsageMB: Double?
    public var notificationSequence: Int64?
    public var errors: [ExtensionErrorBody]?
    /// The app's version and the system's (§10.1's report groups by them).
    public var appVersion: String?
    public var osVersion: String?

    /// The members, read in one pass by the server (`OnePassDecodable`).
    package enum CodingKeys: CodingKey, CaseIterable { case heartbeatAt, monitoringActive, memoryUsageMB, notificationSequence, errors, appVersion, osVersion }

    public init(
        heartbeatAt: Date, monitoringActive: Bool, memoryUsageMB: Double? = nil, notificationSequence: Int64? = nil, errors: [ExtensionErrorBody]? = nil,
        appVersion: String? = nil, osVersion: String? = nil
    ) {
        self.heartbeatAt = heartbeatAt
        self.monitoringActive = monitoringActive
        self.memoryUsageMB = memoryUsageMB
        self.notificationSequence = notificationSequence
        self.errors = errors
        self.appVersion = appVersion
        self.osVersion = osVersion
    }
}

/// One entry of the extension's error log.
public struct ExtensionErrorBody: Codable, Sendable, Equatable {
    public var id: UUID
    public var timestamp: Date
    public var eventName: String
    /// `record_usage`, `post_notification`, `memory_warning`, or `x-…`.
    public var action: String
    public var success: Bool
    public var errorDescription: String?
    public var memoryUsageMB: Double?

    public init(id: UUID, timestamp: Date, eventName: String, action: String, success: Bool, errorDescription: String? = nil, memoryUsageMB: Double? = nil) {
        self.id = id
        self.timestamp = timestamp
        self.eventName = eventName
        self.action = action
        self.success = success
        self.errorDescription = errorDescription
        self.memoryUsageMB = memoryUsageMB
    }

    public init(_ error: ExtensionError) {
        self.init(
            id: error.id, timestamp: error.timestamp, eventName: error.eventName, action: error.action, success: error.success,
            errorDescription: error.errorDescription, memoryUsageMB: error.memoryUsageMB
        )
    }

    public var error: ExtensionError {
        ExtensionError(id: id, timestamp: timestamp, eventName: eventName, action: action, success: success, errorDescription: errorDescription, memoryUsageMB: memoryUsageMB)
    }

    /// In the order the encoder sorts them, as the server writes them too (`WireJSONWritable`).
    package enum CodingKeys: CodingKey, CaseIterable { case action, errorDescription, eventName, id, memoryUsageMB, success, timestamp }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.lowercased, forKey: .id)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(eventName, forKey: .eventName)
        try container.encode(action, forKey: .action)
        try container.encode(success, forKey: .success)
        try container.encode(errorDescription, forKey: .errorDescription)
        try container.encode(memoryUsageMB, forKey: .memoryUsageMB)
    }
}

/// A gap in a day's data (§10).
public struct UsageGapBody: Codable, Sendable, Equatable {
    public var start: Date
    public var end: Date
    public var durationMinutes: Int
    /// `heartbeat_stale` or `session_gap`.
    public var detectionMethod: String

    package enum CodingKeys: CodingKey, CaseIterable { case detectionMethod, durationMinutes, end, start }

    public init(_ gap: UsageGap) {
        start = gap.start
        end = gap.end
        durationMinutes = gap.durationMinutes
        detectionMethod = gap.method.rawValue
    }
}

/// `DeviceHealth` on the wire (§10): every member present, null where there is nothing.
public struct DeviceHealthBody: Codable, Sendable, Equatable {
    public var deviceId: UUID
    public var date: String
    /// `healthy`, `stale`, `inactive` or `unknown`.
    public var status: String
    public var lastHeartbeatAt: Date?
    public var heartbeatGapSeconds: Int?
    public var memoryUsageMB: Double?
    public var missedNotifications: Int
    public var sequenceResets: Int
    public var errorsToday: Int
    public var lastErrors: [ExtensionErrorBody]
    public var gapsToday: [UsageGapBody]
    public var gapMinutesToday: Int

    public init(_ health: DeviceHealth) {
        deviceId = health.deviceID
        date = health.date
        status = health.status.rawValue
        lastHeartbeatAt = health.lastHeartbeatAt
        heartbeatGapSeconds = health.heartbeatGapSeconds
        memoryUsageMB = health.memoryUsageMB
        missedNotifications = health.missedNotifications
        sequenceResets = health.sequenceResets
        errorsToday = health.errorsToday
        lastErrors = health.lastErrors.map(ExtensionErrorBody.init)
        gapsToday = health.gapsToday.map(UsageGapBody.init)
        gapMinutesToday = health.gapMinutesToday
    }

    package enum CodingKeys: CodingKey, CaseIterable {
        case date, deviceId, errorsToday, gapMinutesToday, gapsToday, heartbeatGapSeconds, lastErrors, lastHeartbeatAt, memoryUsageMB, missedNotifications,
            sequenceResets, status
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(deviceId.lowercased, forKey: .deviceId)
        try container.encode(date, forKey: .date)
        try container.encode(status, forKey: .status)
        try container.encode(lastHeartbeatAt, forKey: .lastHeartbeatAt)
        try container.encode(heartbeatGapSeconds, forKey: .heartbeatGapSeconds)
        try container.encode(memoryUsageMB, forKey: .memoryUsageMB)
        try container.encode(missedNotifications, forKey: .missedNotifications)
        try container.encode(sequenceResets, forKey: .sequenceResets)
        try container.encode(errorsToday, forKey: .errorsToday)
        try container.encode(lastErrors, forKey: .lastErrors)
        try container.encode(gapsToday, forKey: .gapsToday)
        try container.encode(gapMinutesToday, forKey: .gapMinutesToday)
    }
}
