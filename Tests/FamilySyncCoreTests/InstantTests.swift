import FamilySyncCore
import Foundation
import Testing

/// The hand-written instant format agrees with Foundation's, and round-trips.
@Suite struct InstantTests {
    /// The date and time of day agree with Foundation's calendar (on whole seconds, where its
    /// arithmetic is exact), the milliseconds are the ones given, and the text parses back.
    @Test func agreesWithTheCalendarAndRoundTrips() {
        var random = SystemRandomNumberGenerator()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        for _ in 0..<5000 {
            // Whole milliseconds from 1900 to 2200.
            let milliseconds = Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &random)
            let date = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
            let wholeSeconds = Date(timeIntervalSince1970: TimeInterval((milliseconds - ((milliseconds % 1000) + 1000) % 1000) / 1000))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: wholeSeconds)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!, Int(((milliseconds % 1000) + 1000) % 1000))
            let text = Instant.format(date)
            #expect(text == expected, "\(milliseconds)")
            #expect(Instant.parse(text) == date, "\(text)")
        }
    }

    /// The compact pages' milliseconds (PROTOCOL §5.5) say the instant the text says: the same
    /// count, rounded alike, and read back into the same `Date` as the text is.
    @Test func millisecondsSayWhatTheTextSays() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            // Any instant from 1900 to 2200, not only whole milliseconds: a database's microseconds.
            let date = Date(timeIntervalSince1970: Double.random(in: -2_208_988_800...7_258_118_400, using: &random))
            let milliseconds = Instant.milliseconds(date)
            #expect(Instant.date(milliseconds: milliseconds) == Instant.parse(Instant.format(date)), "\(date.timeIntervalSince1970)")
            #expect(Instant.milliseconds(Instant.date(milliseconds: milliseconds)) == milliseconds)
        }
    }

    @Test(arguments: [
        ("2026-11-21T08:15:00Z", "2026-11-21T08:15:00.000Z"), ("2026-11-21T08:15:00.5Z", "2026-11-21T08:15:00.500Z"),
        ("2026-11-21T08:15:00.123456Z", "2026-11-21T08:15:00.123Z"), ("2026-11-21T09:15:00.000+01:00", "2026-11-21T08:15:00.000Z"),
        ("2024-02-29T00:00:00.000Z", "2024-02-29T00:00:00.000Z"),
    ])
    func parsesTheSpellingsOfRFC3339(_ input: String, _ formatted: String) throws {
        #expect(Instant.format(try #require(Instant.parse(input))) == formatted)
    }

    @Test(arguments: [
        "2026-02-29T00:00:00Z", "2026-02-29T00:00:00+01:00", "2026-11-21T24:00:00Z", "2026-13-01T00:00:00Z", "2026-11-21 08:15:00Z",
        "2026-11-21T08:15:00", "2026-11-21T08:15:00.Z", "2026-11-21T08:15:00+0100", "yesterday", "",
    ])
    func refusesWhatIsNotAnInstant(_ input: String) {
        #expect(Instant.parse(input) == nil)
    }
}
