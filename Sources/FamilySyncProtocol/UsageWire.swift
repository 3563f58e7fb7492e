import FamilySyncCore
import Foundation

/// `POST /v1/usage` (PROTOCOL §7.2).
public struct UsageUploadRequest: Codable, Sendable, Equatable {
    /// The child's time zone for the summaries; the device's when absent.
    public var timeZone: String?
    public var records: [UsageRecordBody]

    public init(timeZone: String? = nil, records: [UsageRecordBody]) {
        self.timeZone = timeZone
        self.records = records
    }
}

public struct UsageRecordBody: Codable, Sendable, Equatable {
    public var recordID: String
    public var logicalID: String
    public var displayName: String
    public var bundleIdentifier: String?
    public var category: String
    public var sessionStart: Date
    public var sessionEnd: Date
    public var totalSeconds: Int
    public var earnedPoints: Int?
    /// The uploading device; a child uploads only its own usage.
    public var deviceID: String?

    public init(
        recordID: String, logicalID: String, displayName: String, bundleIdentifier: String? = nil, category: String,
        sessionStart: Date, sessionEnd: Date, totalSeconds: Int, earnedPoints: Int? = nil, deviceID: String? = nil
    ) {
        self.recordID = recordID
        self.logicalID = logicalID
        self.displayName = displayName
        self.bundleIdentifier = bundleIdentifier
        self.category = category
        self.sessionStart = sessionStart
        self.sessionEnd = sessionEnd
        self.totalSeconds = totalSeconds
        self.earnedPoints = earnedPoints
        self.deviceID = deviceID
    }
}

public struct UsageUploadResponse: Codable, Sendable, Equatable {
    public var accepted: Int
    public var duplicates: Int
    /// The summary of every day the upload's records touch, after it.
    public var summaries: [DailySummaryBody]
    /// The child zone's token right after the upload (docs/usage.md says when to use it).
    public var changeToken: String

    public init(accepted: Int, duplicates: Int, summaries: [DailySummaryBody], changeToken: String) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.summaries = summaries
        self.changeToken = changeToken
    }
}

/// A `DailySummary` on the wire (§7.3).
public struct DailySummaryBody: Codable, Sendable, Equatable {
    public struct App: Codable, Sendable, Equatable {
        public var logicalID: String
        public var displayName: String
        public var category: String
        public var seconds: Int
        public var points: Int
    }

    public var summaryID: String
    public var date: String
    public var deviceID: String
    public var totalLearningSeconds: Int
    public var totalRewardSeconds: Int
    public var totalPointsEarned: Int
    public var totalSeconds: Int
    public var appsUsed: [String]
    public var byApp: [App]
    public var lastUpdated: Date

    public init(_ summary: DailySummary) {
        summaryID = summary.summaryID
        date = summary.date
        deviceID = summary.deviceID.lowercased
        totalLearningSeconds = summary.totalLearningSeconds
        totalRewardSeconds = summary.totalRewardSeconds
        totalPointsEarned = summary.totalPointsEarned
        totalSeconds = summary.totalSeconds
        appsUsed = summary.appsUsed
        byApp = summary.byApp.map { App(logicalID: $0.logicalID, displayName: $0.displayName, category: $0.category.rawValue, seconds: $0.seconds, points: $0.points) }
        lastUpdated = summary.lastUpdated
    }
}
