import Foundation

/// Instants as the wire carries them (PROTOCOL §1): RFC 3339 in UTC with milliseconds,
/// `2026-11-21T08:15:00.000Z`.
///
/// Formatting and parsing are done here with integer arithmetic (the civil-date algorithms of
/// H. Hinnant), not with Foundation's `ISO8601FormatStyle`: that costs tens of microseconds a call on
/// Linux (a 1000-record usage upload formats and parses several thousand instants), truncates
/// milliseconds it should round (30.735 s printed as 30.734), and parses February 30th as March 2nd.
public enum Instant {
    public static func format(_ date: Date) -> String {
        let milliseconds = Self.milliseconds(date)
        let days = floorDivide(milliseconds, 86_400_000)
        let inDay = milliseconds - days * 86_400_000
        let (year, month, day) = civil(fromDays: days)
        var text = ""
        text.reserveCapacity(24)
        append(&text, year, width: 4)
        text.append("-")
        append(&text, month, width: 2)
        text.append("-")
        append(&text, day, width: 2)
        text.append("T")
        append(&text, inDay / 3_600_000, width: 2)
        text.append(":")
        append(&text, inDay / 60_000 % 60, width: 2)
        text.append(":")
        append(&text, inDay / 1000 % 60, width: 2)
        text.append(".")
        append(&text, inDay % 1000, width: 3)
        text.append("Z")
        return text
    }

    /// Whole milliseconds since 1970-01-01T00:00:00Z, rounded as `format` rounds them: the compact
    /// pages' instants (PROTOCOL §5.5).
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The instant `milliseconds` after 1970-01-01T00:00:00Z, the same value `parse` gives for the
    /// text `format` writes for it.
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }

    /// RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`), with or without fractional seconds, in
    /// UTC or with an offset; nil for anything else, an impossible date (February 30th) included.
    public static func parse(_ text: String) -> Date? {
        // Over the string's own UTF-8, not a copy: an upload parses thousands of instants.
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= 20, bytes.count <= 40, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
            let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23, minute <= 59, second <= 59
        else { return nil }
        // The zone: Z, or ±HH:MM at the end.
        var end = bytes.count
        var offsetSeconds = 0
        if bytes[end - 1] == UInt8(ascii: "Z") || bytes[end - 1] == UInt8(ascii: "z") {
            end -= 1
        } else {
            guard end >= 25, bytes[end - 3] == UInt8(ascii: ":"), bytes[end - 6] == UInt8(ascii: "+") || bytes[end - 6] == UInt8(ascii: "-"),
                let offsetHours = number(bytes, end - 5, 2), let offsetMinutes = number(bytes, end - 2, 2), offsetHours <= 23, offsetMinutes <= 59
            else { return nil }
            offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[end - 6] == UInt8(ascii: "-") ? -1 : 1)
            end -= 6
        }
        var fraction = 0.0
        if end > 19 {
            guard bytes[19] == UInt8(ascii: "."), end - 20 >= 1, end - 20 <= 9, let digits = number(bytes, 20, end - 20) else { return nil }
            fraction = Double(digits) / pow(10, Double(end - 20))
        } else if end != 19 {
            return nil
        }
        let days = daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        // Whole milliseconds, as they are formatted, so that parse(format(x)) == x.
        return date(milliseconds: seconds * 1000 + Int64((fraction * 1000).rounded()))
    }

    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        guard count > 0 else { return nil }
        var value = 0
        for byte in bytes[start..<(start + count)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func append(_ text: inout String, _ value: Int64, width: Int) {
        let digits = String(value)
        if digits.count < width { text.append(String(repeating: "0", count: width - digits.count)) }
        text.append(digits)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
