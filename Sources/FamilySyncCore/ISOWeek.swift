import Foundation

/// An ISO 8601 week, `2026-W48`: Monday to Sunday, week 1 the one with the year's first Thursday.
/// The weekly tracking report (PROTOCOL §10.1) covers the devices' local days of one.
public struct ISOWeek: Sendable, Equatable, CustomStringConvertible {
    public let year: Int
    public let week: Int

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = .gmt
        return calendar
    }()

    /// `YYYY-Www`, a week the year has (52 or 53); nil otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        func digits(_ text: Substring) -> Bool { text.unicodeScalars.allSatisfy { (0x30...0x39).contains($0.value) } }
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 3, parts[1].first == "W", digits(parts[0]), digits(parts[1].dropFirst()),
            let year = Int(parts[0]), let week = Int(parts[1].dropFirst()), (1...9999).contains(year), week >= 1, week <= Self.weeks(in: year)
        else { return nil }
        self.year = year
        self.week = week
    }

    /// The week holding `instant`, in UTC.
    public init(containing instant: Date) {
        let components = Self.calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: instant)
        year = components.yearForWeekOfYear ?? 1970
        week = components.weekOfYear ?? 1
    }

    /// The last whole week before the one holding `instant` (the report's default).
    public static func lastComplete(before instant: Date) -> ISOWeek {
        ISOWeek(containing: ISOWeek(containing: instant).start.addingTimeInterval(-86_400))
    }

    /// 53 for a year whose 28 December falls in week 53, else 52.
    public static func weeks(in year: Int) -> Int {
        let december28 = calendar.date(from: DateComponents(year: year, month: 12, day: 28))!
        return calendar.component(.weekOfYear, from: december28)
    }

    /// Monday 00:00 UTC.
    public var start: Date {
        Self.calendar.date(from: DateComponents(weekday: 2, weekOfYear: week, yearForWeekOfYear: year))!
    }

    /// The next Monday 00:00 UTC.
    public var end: Date { start.addingTimeInterval(7 * 86_400) }

    /// Its seven dates, `YYYY-MM-DD`, Monday first.
    public var dates: [String] {
        (0..<7).map { DailySummaryCalculator.day(of: start.addingTimeInterval(Double($0) * 86_400 + 43_200), in: .gmt) }
    }

    public var description: String {
        "\(String(format: "%04d", year))-W\(week < 10 ? "0" : "")\(week)"
    }
}
