import FamilySyncCore
import Foundation

/// How instants travel (PROTOCOL §1): RFC 3339 in UTC with milliseconds on output; any offset,
/// with or without fractional seconds, on input.
public enum WireCoding {
    public static func format(_ date: Date) -> String {
        Instant.format(date)
    }

    public static func parse(_ text: String) -> Date? {
        Instant.parse(text)
    }

    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }

    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 instant")
            }
            return date
        }
        return decoder
    }
}
