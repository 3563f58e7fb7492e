import Foundation

/// A tracked device's running totals for one local day (PROTOCOL §9.2), kept as one `DailyTotals`
/// record `totals-<YYYY-MM-DD>` in the device's zone: per app, the largest total reported so far.
///
/// One record a day rather than one an app: the summary of a day reads it by name, and a report
/// every 15 minutes rewrites one record (only when something grew) instead of one per app.
public struct DailyTotals: Sendable, Equatable {
    public struct App: Sendable, Equatable {
        public var logicalID: String
        public var displayName: String
        public var bundleIdentifier: String?
        public var category: CategoryID
        public var totalSeconds: Int
        public var earnedPoints: Int
        /// Nil when the device does not count them.
        public var pickups: Int?

        public init(
            logicalID: String, displayName: String, bundleIdentifier: String? = nil, category: CategoryID, totalSeconds: Int, earnedPoints: Int = 0,
            pickups: Int? = nil
        ) {
            self.logicalID = logicalID
            self.displayName = displayName
            self.bundleIdentifier = bundleIdentifier
            self.category = category
            self.totalSeconds = totalSeconds
            self.earnedPoints = earnedPoints
            self.pickups = pickups
        }

        /// §9.2's rules for one app of a report, with `field` naming it (`apps[3]`).
        public func validate(field: String) throws(FamilySyncError) {
            func bad(_ member: String, _ reason: String) -> FamilySyncError { .badRequest(reason, field: "\(field).\(member)") }
            guard (1...255).contains(logicalID.utf8.count) else { throw bad("logicalID", "logicalID is 1–255 bytes.") }
            guard (1...255).contains(displayName.utf8.count) else { throw bad("displayName", "displayName is 1–255 bytes.") }
            if let bundleIdentifier, bundleIdentifier.utf8.count > 255 { throw bad("bundleIdentifier", "bundleIdentifier is at most 255 bytes.") }
            guard (0...DailyTotals.maximumSeconds).contains(totalSeconds) else {
                throw bad("totalSeconds", "totalSeconds is 0–\(DailyTotals.maximumSeconds) (a day of 25 hours).")
            }
            guard earnedPoints >= 0 else { throw bad("earnedPoints", "earnedPoints is not negative.") }
            if let pickups, pickups < 0 { throw bad("pickups", "pickups is not negative.") }
        }
    }

    public var date: String
    /// By `logicalID`.
    public var apps: [App]

    public init(date: String, apps: [App]) {
        self.date = date
        self.apps = apps.sorted { $0.logicalID < $1.logicalID }
    }

    /// At most this many apps a report, and a day.
    public static let maximumApps = 1000
    /// A day of 25 hours (the day clocks go back).
    public static let maximumSeconds = 90_000

    public var recordName: String { Self.recordName(date) }
    public static func recordName(_ date: String) -> String { "totals-\(date)" }

    /// These totals with a new report merged in: per app, the largest seconds, points and pickups
    /// of either, so a late or repeated report never lowers a total. The name and bundle id are
    /// the report's; so is the category, but for apps in `keepingCategory` (reported without one)
    /// that were stored before.
    public func merging(_ report: [App], keepingCategory: Set<String> = []) -> DailyTotals {
        var merged = Dictionary(uniqueKeysWithValues: apps.map { ($0.logicalID, $0) })
        for app in report {
            guard let stored = merged[app.logicalID] else {
                merged[app.logicalID] = app
                continue
            }
            var next = app
            if keepingCategory.contains(app.logicalID) { next.category = stored.category }
            next.totalSeconds = max(stored.totalSeconds, app.totalSeconds)
            next.earnedPoints = max(stored.earnedPoints, app.earnedPoints)
            next.pickups = [stored.pickups, app.pickups].compactMap { $0 }.max()
            merged[app.logicalID] = next
        }
        return DailyTotals(date: date, apps: Array(merged.values))
    }

    public var fields: [String: JSONValue] {
        [
            "date": .string(date),
            "apps": .array(apps.map { app in
                var object: [String: JSONValue] = [
                    "logicalID": .string(app.logicalID), "displayName": .string(app.displayName), "category": .string(app.category.rawValue),
                    "totalSeconds": .number(Double(app.totalSeconds)), "earnedPoints": .number(Double(app.earnedPoints)),
                ]
                if let bundleIdentifier = app.bundleIdentifier { object["bundleIdentifier"] = .string(bundleIdentifier) }
                if let pickups = app.pickups { object["pickups"] = .number(Double(pickups)) }
                return .object(object)
            }),
        ]
    }

    public init?(fields: [String: JSONValue]) {
        func string(_ object: [String: JSONValue], _ key: String) -> String? { if case .string(let value)? = object[key] { value } else { nil } }
        func integer(_ object: [String: JSONValue], _ key: String) -> Int? {
            if case .number(let value)? = object[key], let int = Int(exactly: value) { int } else { nil }
        }
        guard let date = string(fields, "date"), case .array(let list)? = fields["apps"] else { return nil }
        var apps: [App] = []
        for case .object(let app) in list {
            guard let logicalID = string(app, "logicalID"), let name = string(app, "displayName"),
                let category = string(app, "category").flatMap(CategoryID.init(rawValue:)),
                let seconds = integer(app, "totalSeconds"), let points = integer(app, "earnedPoints")
            else { return nil }
            apps.append(App(
                logicalID: logicalID, displayName: name, bundleIdentifier: string(app, "bundleIdentifier"), category: category,
                totalSeconds: seconds, earnedPoints: points, pickups: integer(app, "pickups")
            ))
        }
        self.init(date: date, apps: apps)
    }

    /// A live `DailyTotals` record's totals; nil for other records and tombstones.
    public init?(record: Record) {
        guard record.recordType == RecordTypeName.dailyTotals, !record.deleted else { return nil }
        self.init(fields: record.fields)
    }

    /// Whether `date` may be reported at `now` (§9.2): not after tomorrow in `timeZone`, and not
    /// a day that ended longer ago than usage is kept. `field` names the date in the error.
    public static func checkDate(_ date: String, in timeZone: TimeZone, now: Date, retention: TimeInterval, field: String) throws(FamilySyncError) {
        guard let day = DailySummaryCalculator.interval(of: date, in: timeZone) else {
            throw DailySummaryCalculator.notADate("date", field: field)
        }
        let today = DailySummaryCalculator.dayNumber(of: now, in: timeZone)
        guard DailySummaryCalculator.dayNumber(of: day.start, in: timeZone) <= today + 1 else {
            throw .badRequest("date is at most tomorrow in the time zone (\(timeZone.identifier)).", field: field)
        }
        guard day.end >= now.addingTimeInterval(-retention) else {
            throw .badRequest("The day ended longer ago than usage is kept (\(Int(retention / 86_400)) days).", field: field)
        }
    }

    /// The latest date that ended before `instant` in every time zone (a day ends last at UTC−12,
    /// 12 hours after UTC's): two days before its UTC date. The retention job deletes totals up to
    /// it; a report it accepts (`checkDate`) is never of such a day.
    public static func lastEndedDate(before instant: Date) -> String {
        DailySummaryCalculator.format(DailySummaryCalculator.dayNumber(of: instant, in: .gmt) - 2)
    }
}
