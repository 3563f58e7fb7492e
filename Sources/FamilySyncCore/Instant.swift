import Foundation

/// Instants as the wire carries them (PROTOCOL §1): RFC 3339 in UTC with milliseconds.
public enum Instant {
    public static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// RFC 3339 with or without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
