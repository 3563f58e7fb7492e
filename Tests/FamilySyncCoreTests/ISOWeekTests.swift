import FamilySyncCore
import Foundation
import Testing

@Suite struct ISOWeekTests {
    @Test func parsesTheWeeksAYearHas() throws {
        let week = try #require(ISOWeek("2026-W48"))
        #expect(week.dates == ["2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"])
        #expect(week.description == "2026-W48" && Instant.format(week.start) == "2026-11-23T00:00:00.000Z" && week.end == week.start.addingTimeInterval(7 * 86_400))
        // 2026 begins on a Thursday: 53 weeks, the last ending on 3 January 2027. 2025 has 52.
        #expect(ISOWeek("2026-W53")?.dates.last == "2027-01-03" && ISOWeek("2026-W01")?.dates.first == "2025-12-29")
        #expect(ISOWeek.weeks(in: 2026) == 53 && ISOWeek.weeks(in: 2025) == 52 && ISOWeek("2025-W53") == nil)
        #expect(ISOWeek("2026-W05")?.description == "2026-W05")
    }

    @Test(arguments: ["", "2026", "2026-48", "2026-W8", "2026-W008", "2026-W00", "2026-W54", "26-W48", "2026-w48", "2026-W4x", "２026-W48", "2026-W+8", "+026-W48", "0000-W01", "0000-W52", "9999-W52"])
    func refuses(_ text: String) {
        #expect(ISOWeek(text) == nil)
    }

    /// The dates' calendar (§1: proleptic Gregorian, 0001-01-01 to 9999-12-31) for weeks too: a
    /// week of any year is seven days from a Monday, and one whose days are all such dates is
    /// taken (0001-W01 starts on Monday 0001-01-01; 9999-W52 ends on 10000-01-02).
    @Test func weeksOfEveryYearFrom1() throws {
        #expect(try #require(ISOWeek("0001-W01")).dates == ["0001-01-01", "0001-01-02", "0001-01-03", "0001-01-04", "0001-01-05", "0001-01-06", "0001-01-07"])
        #expect(try #require(ISOWeek("1582-W41")).dates == ["1582-10-11", "1582-10-12", "1582-10-13", "1582-10-14", "1582-10-15", "1582-10-16", "1582-10-17"])
        #expect(try #require(ISOWeek("9999-W51")).dates.last == "9999-12-26")
        // A year has 53 weeks when it begins on a Thursday, or on a Wednesday in a leap year.
        // As Python's proleptic `date(year, 12, 28).isocalendar()` counts them.
        #expect([4, 1581, 2020, 2026, 9998].allSatisfy { ISOWeek.weeks(in: $0) == 53 } && [1, 100, 1000, 1582].allSatisfy { ISOWeek.weeks(in: $0) == 52 })
        for year in [1, 4, 100, 400, 1000, 1580, 1581, 1582, 1583, 2020, 2026, 9998] {
            let january1 = try #require(DailySummaryCalculator.interval(of: String(format: "%04d-01-01", year), in: .gmt)).start
            let weekday = Int(((january1.timeIntervalSince1970 / 86_400).rounded(.down) + 3).truncatingRemainder(dividingBy: 7) + 7) % 7  // Monday 0
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            #expect(ISOWeek.weeks(in: year) == (weekday == 3 || (leap && weekday == 2) ? 53 : 52), "\(year)")
            let first = try #require(ISOWeek(String(format: "%04d-W01", year)))
            #expect(Int(((first.start.timeIntervalSince1970 / 86_400) + 3).truncatingRemainder(dividingBy: 7) + 7) % 7 == 0, "\(year)-W01 starts on a Monday")
            #expect(ISOWeek(containing: first.start.addingTimeInterval(3 * 86_400)) == first)
        }
    }

    @Test func theWeekOfAnInstantAndTheLastWholeOne() {
        let thursday = Instant.parse("2026-11-26T15:00:00Z")!
        #expect(ISOWeek(containing: thursday).description == "2026-W48")
        #expect(ISOWeek.lastComplete(before: thursday).description == "2026-W47")
        // Across a year: 1 January 2027 is in 2026's week 53; the week before a Monday is the last whole one.
        #expect(ISOWeek(containing: Instant.parse("2027-01-01T12:00:00Z")!).description == "2026-W53")
        #expect(ISOWeek.lastComplete(before: Instant.parse("2027-01-04T00:00:00Z")!).description == "2026-W53")
    }
}
