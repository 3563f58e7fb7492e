import FamilySyncCore
import Foundation

/// `POST /v1/usage` (PROTOCOL §7.2).
public struct UsageUploadRequest: Codable, Sendable, Equatable {
    /// The child's time zone for the summaries; the device's when absent.
    public var timeZone: String?
    public var records: [UsageRecordBody]

    package enum CodingKeys: CodingKey, CaseIterable { case timeZone, records }

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
    /// A category id (§9.1); absent: the server categorises (the device's configuration of the
    /// app, else its bundle id, else `other`).
    public var category: String?
    public var sessionStart: Date
    public var sessionEnd: Date
    public var totalSeconds: Int
    public var earnedPoints: Int?
    /// The uploading device; a child uploads only its own usage.
    public var deviceID: String?
    /// §9.1: pickups into the app during the session.
    public var pickups: Int?

    package enum CodingKeys: CodingKey, CaseIterable {
        case recordID, logicalID, displayName, bundleIdentifier, category, sessionStart, sessionEnd, totalSeconds, earnedPoints, deviceID, pickups
    }

    public init(
        recordID: String, logicalID: String, displayName: String, bundleIdentifier: String? = nil, category: String?,
        sessionStart: Date, sessionEnd: Date, totalSeconds: Int, earnedPoints: Int? = nil, deviceID: String? = nil, pickups: Int? = nil
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
        self.pickups = pickups
    }
}

public struct UsageUploadResponse: Codable, Sendable, Equatable {
    public var accepted: Int
    public var duplicates: Int
    /// The summary of every day the upload's records touch, after it.
    public var summaries: [DailySummaryBody]
    /// The child zone's token right after the upload (docs/usage.md says when to use it).
    public var changeToken: String
    /// The budget alerts this upload made (§9.4); empty when it made none.
    public var alerts: [AlertBody]

    package enum CodingKeys: CodingKey, CaseIterable { case accepted, alerts, changeToken, duplicates, summaries }

    public init(accepted: Int, duplicates: Int, summaries: [DailySummaryBody], changeToken: String, alerts: [AlertBody] = []) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.summaries = summaries
        self.changeToken = changeToken
        self.alerts = alerts
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
        public var pickups: Int

        package enum CodingKeys: CodingKey, CaseIterable { case category, displayName, logicalID, pickups, points, seconds }

        public init(logicalID: String, displayName: String, category: String, seconds: Int, points: Int, pickups: Int = 0) {
            self.logicalID = logicalID
            self.displayName = displayName
            self.category = category
            self.seconds = seconds
            self.points = points
            self.pickups = pickups
        }
    }

    public struct Category: Codable, Sendable, Equatable {
        public var category: String
        public var seconds: Int
        public var points: Int

        package enum CodingKeys: CodingKey, CaseIterable { case category, points, seconds }
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
    /// §9.1: each category used, most used first.
    public var byCategory: [Category]
    public var totalPickups: Int
    /// Null for a day with no usage stored.
    public var lastUpdated: Date?

    package enum CodingKeys: CodingKey, CaseIterable {
        case appsUsed, byApp, byCategory, date, deviceID, lastUpdated, summaryID, totalLearningSeconds, totalPickups, totalPointsEarned, totalRewardSeconds,
            totalSeconds
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(summaryID, forKey: .summaryID)
        try container.encode(date, forKey: .date)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encode(totalLearningSeconds, forKey: .totalLearningSeconds)
        try container.encode(totalRewardSeconds, forKey: .totalRewardSeconds)
        try container.encode(totalPointsEarned, forKey: .totalPointsEarned)
        try container.encode(totalSeconds, forKey: .totalSeconds)
        try container.encode(appsUsed, forKey: .appsUsed)
        try container.encode(byApp, forKey: .byApp)
        try container.encode(byCategory, forKey: .byCategory)
        try container.encode(totalPickups, forKey: .totalPickups)
        try container.encode(lastUpdated, forKey: .lastUpdated)
    }

    /// A day without a stored summary: zeros.
    public init(emptyDay date: String, deviceID: UUID) {
        self.init(DailySummary.empty(date: date, deviceID: deviceID, at: Date(timeIntervalSince1970: 0)))
        lastUpdated = nil
    }

    public init(_ summary: DailySummary) {
        summaryID = summary.summaryID
        date = summary.date
        deviceID = summary.deviceID.lowercased
        totalLearningSeconds = summary.totalLearningSeconds
        totalRewardSeconds = summary.totalRewardSeconds
        totalPointsEarned = summary.totalPointsEarned
        totalSeconds = summary.totalSeconds
        appsUsed = summary.appsUsed
        byApp = summary.byApp.map {
            App(logicalID: $0.logicalID, displayName: $0.displayName, category: $0.category.rawValue, seconds: $0.seconds, points: $0.points, pickups: $0.pickups)
        }
        byCategory = summary.byCategory.map { Category(category: $0.category.rawValue, seconds: $0.seconds, points: $0.points) }
        totalPickups = summary.totalPickups
        lastUpdated = summary.lastUpdated
    }
}

/// `GET /v1/devices/{childId}/summaries`.
public struct SummaryList: Codable, Sendable, Equatable {
    public var summaries: [DailySummaryBody]

    public init(summaries: [DailySummaryBody]) {
        self.summaries = summaries
    }
}

/// `GET /v1/devices/{childId}/usage`: a page, and the cursor of the next (null at the end).
public struct UsageList: Codable, Sendable, Equatable {
    public var records: [UsageRecordBody]
    public var cursor: String?

    public init(records: [UsageRecordBody], cursor: String?) {
        self.records = records
        self.cursor = cursor
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(records, forKey: .records)
        try container.encode(cursor, forKey: .cursor)
    }
}

/// `GET /v1/devices/{childId}/report`.
public struct ReportBody: Codable, Sendable, Equatable {
    public struct Period: Codable, Sendable, Equatable {
        public var start: String
        public var end: String
        public var totalLearningSeconds: Int
        public var totalRewardSeconds: Int
        public var totalPointsEarned: Int
        public var totalSeconds: Int
        /// §9.1's pickups of every app in the period.
        public var totalPickups: Int
        public var topApps: [DailySummaryBody.App]
        /// A member's report only (§8): seconds by platform, most used first.
        public var byPlatform: [MemberDayBody.Platform]?

        public init(_ period: UsageReport.Period, withPlatforms: Bool = false) {
            start = period.start
            end = period.end
            totalLearningSeconds = period.totalLearningSeconds
            totalRewardSeconds = period.totalRewardSeconds
            totalPointsEarned = period.totalPointsEarned
            totalSeconds = period.totalSeconds
            totalPickups = period.totalPickups
            topApps = period.apps.prefix(UsageReport.topAppCount).map {
                DailySummaryBody.App(logicalID: $0.logicalID, displayName: $0.displayName, category: $0.category.rawValue, seconds: $0.seconds, points: $0.points, pickups: $0.pickups)
            }
            byPlatform = withPlatforms ? period.byPlatform.map { MemberDayBody.Platform(platform: $0.platform, seconds: $0.seconds) } : nil
        }

        enum CodingKeys: String, CodingKey {
            case start, end, totalLearningSeconds, totalRewardSeconds, totalPointsEarned, totalSeconds, totalPickups, topApps, byPlatform
        }

        // `byPlatform` is absent from a device's report, not null.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(start, forKey: .start)
            try container.encode(end, forKey: .end)
            try container.encode(totalLearningSeconds, forKey: .totalLearningSeconds)
            try container.encode(totalRewardSeconds, forKey: .totalRewardSeconds)
            try container.encode(totalPointsEarned, forKey: .totalPointsEarned)
            try container.encode(totalSeconds, forKey: .totalSeconds)
            try container.encode(totalPickups, forKey: .totalPickups)
            try container.encode(topApps, forKey: .topApps)
            try container.encodeIfPresent(byPlatform, forKey: .byPlatform)
        }
    }

    public var granularity: String
    public var from: String
    public var to: String
    public var periods: [Period]
    public var totals: Period

    public init(_ report: UsageReport, withPlatforms: Bool = false) {
        granularity = report.granularity.rawValue
        from = report.from
        to = report.to
        periods = report.periods.map { Period($0, withPlatforms: withPlatforms) }
        totals = Period(report.total, withPlatforms: withPlatforms)
    }
}

extension UsageRecordBody {
    public init(_ session: UsageSession, deviceID: UUID) {
        self.init(
            recordID: session.recordID.lowercased, logicalID: session.logicalID, displayName: session.displayName,
            bundleIdentifier: session.bundleIdentifier, category: session.category.rawValue, sessionStart: session.sessionStart,
            sessionEnd: session.sessionEnd, totalSeconds: session.totalSeconds, earnedPoints: session.earnedPoints, deviceID: deviceID.lowercased
        )
    }
}

/// `POST /v1/usage/totals` (PROTOCOL §9.2): a tracked device's running totals for one day.
public struct UsageTotalsRequest: Codable, Sendable, Equatable {
    /// The device's time zone for the day; the device's registered one when absent.
    public var timeZone: String?
    /// The local day, `YYYY-MM-DD`.
    public var date: String
    public var apps: [UsageTotalBody]

    package enum CodingKeys: CodingKey, CaseIterable { case timeZone, date, apps }

    public init(timeZone: String? = nil, date: String, apps: [UsageTotalBody]) {
        self.timeZone = timeZone
        self.date = date
        self.apps = apps
    }
}

/// One app's total so far on the day.
public struct UsageTotalBody: Codable, Sendable, Equatable {
    public var logicalID: String
    public var displayName: String
    public var bundleIdentifier: String?
    /// A category id (§9.1); absent: the stored one, else as for usage records.
    public var category: String?
    public var totalSeconds: Int
    public var pickups: Int?
    public var earnedPoints: Int?

    package enum CodingKeys: CodingKey, CaseIterable { case logicalID, displayName, bundleIdentifier, category, totalSeconds, pickups, earnedPoints }

    public init(
        logicalID: String, displayName: String, bundleIdentifier: String? = nil, category: String? = nil, totalSeconds: Int, pickups: Int? = nil,
        earnedPoints: Int? = nil
    ) {
        self.logicalID = logicalID
        self.displayName = displayName
        self.bundleIdentifier = bundleIdentifier
        self.category = category
        self.totalSeconds = totalSeconds
        self.pickups = pickups
        self.earnedPoints = earnedPoints
    }
}

public struct UsageTotalsResponse: Codable, Sendable, Equatable {
    /// The day's summary after the report.
    public var summary: DailySummaryBody
    /// The budget alerts this report made (§9.4).
    public var alerts: [AlertBody]
    /// The device zone's token right after the report.
    public var changeToken: String

    package enum CodingKeys: CodingKey, CaseIterable { case alerts, changeToken, summary }

    public init(summary: DailySummaryBody, alerts: [AlertBody], changeToken: String) {
        self.summary = summary
        self.alerts = alerts
        self.changeToken = changeToken
    }
}
