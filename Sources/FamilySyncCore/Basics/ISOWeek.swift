import Foundation

/// An ISO 8601 week, `2026-W48`: Monday to Sunday, week 1 the one with the year's first Thursday.
/// The weekly tracking report (PROTOCOL §10.1) covers the devices' local days of one. Weeks are
/// counted in the calendar of every date (§1: proleptic Gregorian, 0001-01-01 to 9999-12-31), by
/// day numbers rather than Foundation's calendars, which are Julian before 1582-10-15.
public struct ISOWeek: Sendable, Equatable, CustomStringConvertible {
    public let year: Int
    public let week: Int

    /// `YYYY-Www`, a week the year has (52 or 53) whose seven days are dates: 0001-W01 (from
    /// Monday 0001-01-01) to 9999-W51 (9999-W52 ends on 10000-01-02); nil otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        func digits(_ text: Substring) -> Bool { text.unicodeScalars.allSatisfy { (0x30...0x39).contains($0.value) } }
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 3, parts[1].first == "W", digits(parts[0]), digits(parts[1].dropFirst()),
            let year = Int(parts[0]), let week = Int(parts[1].dropFirst()), year >= 1, week >= 1, week <= Self.weeks(in: year),
            Self.monday(ofWeek: week, in: year) + 6 <= Self.lastDay
        else { return nil }
        self.year = year
        self.week = week
    }

    /// The week holding `instant`, in UTC.
    public init(containing instant: Date) {
        let day = Int64((instant.timeIntervalSince1970 / 86_400).rounded(.down))
        // A week belongs to the year of its Thursday.
        let thursday = day - Self.weekday(day) + 3
        year = Int(Instant.civil(fromDays: thursday).year)
        week = Int((thursday - 3 - Self.monday(ofWeek: 1, in: year)) / 7) + 1
    }

    /// The last whole week before the one holding `instant` (the report's default).
    public static func lastComplete(before instant: Date) -> ISOWeek {
        ISOWeek(containing: ISOWeek(containing: instant).start.addingTimeInterval(-86_400))
    }

    /// 53 for a year whose 28 December falls in week 53, else 52.
    public static func weeks(in year: Int) -> Int {
        Int((monday(ofWeek: 1, in: year + 1) - monday(ofWeek: 1, in: year)) / 7)
    }

    /// Monday 00:00 UTC.
    public var start: Date {
        Date(timeIntervalSince1970: TimeInterval(Self.monday(ofWeek: week, in: year) * 86_400))
    }

    /// The next Monday 00:00 UTC.
    public var end: Date { start.addingTimeInterval(7 * 86_400) }

    /// The day number (days since 1970-01-01) of the week's Monday: week 1 holds 4 January.
    static func monday(ofWeek week: Int, in year: Int) -> Int64 {
        let january4 = Instant.daysFromCivil(year: Int64(year), month: 1, day: 4)
        return january4 - weekday(january4) + Int64(week - 1) * 7
    }

    /// Monday 0 to Sunday 6 (1970-01-01 was a Thursday).
    static func weekday(_ day: Int64) -> Int64 {
        ((day + 3) % 7 + 7) % 7
    }

    /// 9999-12-31, the last date (§1); the first, 0001-01-01, is week 1's Monday.
    static let lastDay = Instant.daysFromCivil(year: 9999, month: 12, day: 31)

    /// Its seven dates, `YYYY-MM-DD`, Monday first.
    public var dates: [String] {
        (0..<7).map { DailySummaryCalculator.day(of: start.addingTimeInterval(Double($0) * 86_400 + 43_200), in: .gmt) }
    }

    public var description: String {
        "\(String(format: "%04d", year))-W\(week < 10 ? "0" : "")\(week)"
    }
}
