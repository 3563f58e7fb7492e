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

    @Test(arguments: ["", "2026", "2026-48", "2026-W8", "2026-W008", "2026-W00", "2026-W54", "26-W48", "2026-w48", "2026-W4x", "２026-W48", "2026-W+8", "+026-W48", "0000-W01"])
    func refuses(_ text: String) {
        #expect(ISOWeek(text) == nil)
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
