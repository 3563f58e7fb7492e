import Foundation

/// A tracked device's week, Monday to Sunday (ISO 8601 weeks, days as the device's
/// `DailySummary` records name them): a `WeeklySummary` record `week-<monday>` in the device's
/// zone, derived by the server from the week's daily summaries. Behind no endpoint of its own:
/// devices and parents get it through their zone's changes.
public struct WeeklySummary: Sendable, Equatable {
    /// The week's Monday, `YYYY-MM-DD`.
    public var weekStart: String
    /// Each day's seconds, Monday first, zeros included.
    public var secondsByDay: [Int]
    /// Each category used in the week, most used first.
    public var secondsByCategory: [(category: CategoryID, seconds: Int)]

    public var totalSeconds: Int { secondsByDay.reduce(0, +) }
    public var recordName: String { Self.recordName(weekStart) }
    public static func recordName(_ weekStart: String) -> String { "week-\(weekStart)" }

    public static func == (lhs: WeeklySummary, rhs: WeeklySummary) -> Bool {
        lhs.weekStart == rhs.weekStart && lhs.secondsByDay == rhs.secondsByDay
            && lhs.secondsByCategory.map(\.category) == rhs.secondsByCategory.map(\.category)
            && lhs.secondsByCategory.map(\.seconds) == rhs.secondsByCategory.map(\.seconds)
    }

    /// The week of `monday` from the summaries of its days (others are ignored).
    public init(weekStart monday: String, days: [DailySummary]) {
        let dates = Self.dates(ofWeek: monday)
        weekStart = monday
        secondsByDay = dates.map { date in days.first { $0.date == date }?.totalSeconds ?? 0 }
        var categories: [CategoryID: Int] = [:]
        for day in days where dates.contains(day.date) {
            for total in day.byCategory { categories[total.category, default: 0] += total.seconds }
        }
        secondsByCategory = categories.map { ($0.key, $0.value) }.sorted { ($1.seconds, $0.category) < ($0.seconds, $1.category) }
    }

    public var fields: [String: JSONValue] {
        [
            "weekStart": .string(weekStart), "totalSeconds": .number(Double(totalSeconds)),
            "secondsByDay": .array(secondsByDay.map { .number(Double($0)) }),
            "byCategory": .array(secondsByCategory.map { .object(["category": .string($0.category.rawValue), "seconds": .number(Double($0.seconds))]) }),
        ]
    }

    public init?(fields: [String: JSONValue]) {
        guard case .string(let monday)? = fields["weekStart"], case .array(let days)? = fields["secondsByDay"], case .array(let categories)? = fields["byCategory"]
        else { return nil }
        weekStart = monday
        secondsByDay = days.compactMap { if case .number(let seconds) = $0 { Int(seconds) } else { nil } }
        secondsByCategory = categories.compactMap { entry in
            guard case .object(let object) = entry, case .string(let id)? = object["category"], let category = CategoryID(rawValue: id),
                case .number(let seconds)? = object["seconds"]
            else { return nil }
            return (category, Int(seconds))
        }
    }

    /// The Monday of the ISO week `date` falls in; nil for a malformed date.
    public static func monday(of date: String) -> String? {
        guard let parts = DateComponents(dateString: date), let day = Self.calendar.date(from: parts) else { return nil }
        let weekday = Self.calendar.component(.weekday, from: day)  // 1 = Sunday
        return Self.format(Self.calendar.date(byAdding: .day, value: -((weekday + 5) % 7), to: day)!)
    }

    /// The seven dates of the week starting on `monday`.
    public static func dates(ofWeek monday: String) -> [String] {
        guard let parts = DateComponents(dateString: monday), let start = Self.calendar.date(from: parts) else { return [] }
        return (0..<7).map { Self.format(Self.calendar.date(byAdding: .day, value: $0, to: start)!) }
    }

    /// Dates are calendar days, whatever the device's time zone: counted in UTC.
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    private static func format(_ day: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// `DailySummary` → `WeeklySummary`: the weeks the written summaries fall in, each recomputed
    /// from its seven days' summaries (the written ones in place of what is stored); a week that
    /// comes out as stored is not written again.
    public static let derivation = Derivation { written, context in
        let fresh = written.compactMap { DailySummary(fields: $0.fields) }
        let weeks = Set(fresh.compactMap { monday(of: $0.date) }).sorted()
        guard !weeks.isEmpty else { return .none }
        let days = weeks.flatMap(dates(ofWeek:))
        return Derivation.Plan(reads: [.named(days.map(DailySummary.recordName) + weeks.map(recordName))], into: context.zone.name) { stored in
            let freshDates = Set(fresh.map(\.date))
            let summaries = fresh + stored.filter { $0.recordType == RecordTypeName.dailySummary }.compactMap { DailySummary(fields: $0.fields) }.filter { !freshDates.contains($0.date) }
            return weeks.compactMap { monday in
                let week = WeeklySummary(weekStart: monday, days: summaries)
                let before = stored.first { $0.recordName == week.recordName }
                if let before, WeeklySummary(fields: before.fields) == week { return nil }
                return Record(
                    recordName: week.recordName, recordType: RecordTypeName.weeklySummary, fields: week.fields, changeTag: "", deleted: false,
                    createdAt: before?.createdAt ?? context.now, createdBy: context.writer, modifiedAt: context.now, modifiedBy: context.writer,
                    modifiedRole: .server, clientModifiedAt: context.now
                )
            }
        }
    }
}

extension DateComponents {
    /// `YYYY-MM-DD` as a calendar day; nil for anything else.
    init?(dateString: String) {
        let parts = dateString.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, dateString.count == 10 else { return nil }
        self.init(year: parts[0], month: parts[1], day: parts[2])
    }
}
