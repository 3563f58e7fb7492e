import Foundation

/// A child device's usage on one local day (PROTOCOL §7.3): a `DailySummary` record
/// `summary-<YYYY-MM-DD>` in the child's zone, derived by the server.
public struct DailySummary: Sendable, Equatable {
    public struct App: Sendable, Equatable {
        public var logicalID: String
        public var displayName: String
        public var category: UsageSession.Category
        public var seconds: Int
        public var points: Int
        public var pickups: Int

        public init(logicalID: String, displayName: String, category: UsageSession.Category, seconds: Int, points: Int, pickups: Int = 0) {
            self.logicalID = logicalID
            self.displayName = displayName
            self.category = category
            self.seconds = seconds
            self.points = points
            self.pickups = pickups
        }
    }

    /// A category's share of a day (§9.1).
    public struct CategoryTotal: Sendable, Equatable {
        public var category: CategoryID
        public var seconds: Int
        public var points: Int
    }

    public var date: String
    public var deviceID: UUID
    public var totalLearningSeconds: Int
    public var totalRewardSeconds: Int
    public var totalPointsEarned: Int
    public var byApp: [App]
    public var lastUpdated: Date

    /// Every app's seconds, whatever the kind of its category.
    public var totalSeconds: Int { byApp.reduce(0) { $0 + $1.seconds } }
    public var totalPickups: Int { byApp.reduce(0) { $0 + $1.pickups } }

    /// Each category used that day, most used first.
    public var byCategory: [CategoryTotal] { Self.byCategory(byApp) }

    static func byCategory(_ apps: [App]) -> [CategoryTotal] {
        var totals: [CategoryID: CategoryTotal] = [:]
        for app in apps {
            totals[app.category, default: CategoryTotal(category: app.category, seconds: 0, points: 0)].seconds += app.seconds
            totals[app.category]?.points += app.points
        }
        return totals.values.sorted { ($1.seconds, $0.category) < ($0.seconds, $1.category) }
    }
    public var appsUsed: [String] { byApp.map(\.logicalID).sorted() }
    public var summaryID: String { "\(deviceID.lowercased)_\(date)" }
    public var recordName: String { Self.recordName(date) }
    public static func recordName(_ date: String) -> String { "summary-\(date)" }

    /// A day with no usage.
    public static func empty(date: String, deviceID: UUID, at instant: Date) -> DailySummary {
        DailySummary(date: date, deviceID: deviceID, totalLearningSeconds: 0, totalRewardSeconds: 0, totalPointsEarned: 0, byApp: [], lastUpdated: instant)
    }

    /// Equal but for when it was computed.
    public func sameContent(as other: DailySummary) -> Bool {
        var other = other
        other.lastUpdated = lastUpdated
        return self == other
    }

    public var fields: [String: JSONValue] {
        [
            "summaryID": .string(summaryID), "date": .string(date), "deviceID": .string(deviceID.lowercased),
            "totalLearningSeconds": .number(Double(totalLearningSeconds)), "totalRewardSeconds": .number(Double(totalRewardSeconds)),
            "totalPointsEarned": .number(Double(totalPointsEarned)), "totalSeconds": .number(Double(totalSeconds)),
            "totalPickups": .number(Double(totalPickups)),
            "appsUsed": .array(appsUsed.map(JSONValue.string)),
            "byApp": .array(byApp.map { app in
                .object([
                    "logicalID": .string(app.logicalID), "displayName": .string(app.displayName), "category": .string(app.category.rawValue),
                    "seconds": .number(Double(app.seconds)), "points": .number(Double(app.points)), "pickups": .number(Double(app.pickups)),
                ])
            }),
            "byCategory": .array(byCategory.map { total in
                .object(["category": .string(total.category.rawValue), "seconds": .number(Double(total.seconds)), "points": .number(Double(total.points))])
            }),
            "lastUpdated": .string(Instant.format(lastUpdated)),
        ]
    }

    public init(date: String, deviceID: UUID, totalLearningSeconds: Int, totalRewardSeconds: Int, totalPointsEarned: Int, byApp: [App], lastUpdated: Date) {
        self.date = date
        self.deviceID = deviceID
        self.totalLearningSeconds = totalLearningSeconds
        self.totalRewardSeconds = totalRewardSeconds
        self.totalPointsEarned = totalPointsEarned
        self.byApp = byApp
        self.lastUpdated = lastUpdated
    }

    public init?(fields: [String: JSONValue]) {
        func string(_ object: [String: JSONValue], _ key: String) -> String? { if case .string(let value)? = object[key] { value } else { nil } }
        func integer(_ object: [String: JSONValue], _ key: String) -> Int? {
            if case .number(let value)? = object[key], let int = Int(exactly: value) { int } else { nil }
        }
        guard let date = string(fields, "date"), let device = string(fields, "deviceID").flatMap(UUID.init(uuidString:)),
            let learning = integer(fields, "totalLearningSeconds"), let reward = integer(fields, "totalRewardSeconds"),
            let points = integer(fields, "totalPointsEarned"), let updated = string(fields, "lastUpdated").flatMap(Instant.parse),
            case .array(let apps)? = fields["byApp"]
        else { return nil }
        var byApp: [App] = []
        for case .object(let app) in apps {
            guard let id = string(app, "logicalID"), let name = string(app, "displayName"),
                let category = string(app, "category").flatMap(UsageSession.Category.init(rawValue:)),
                let seconds = integer(app, "seconds"), let appPoints = integer(app, "points")
            else { return nil }
            // Summaries stored before pickups were counted have none.
            byApp.append(App(logicalID: id, displayName: name, category: category, seconds: seconds, points: appPoints, pickups: integer(app, "pickups") ?? 0))
        }
        self.init(date: date, deviceID: device, totalLearningSeconds: learning, totalRewardSeconds: reward, totalPointsEarned: points, byApp: byApp, lastUpdated: updated)
    }
}
