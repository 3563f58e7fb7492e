import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// How a client subcommand prints: tables and sentences for a person, JSON for a script. Every
/// write goes straight to standard output (no buffering), so `watch` piped into another program
/// delivers each change as it comes.
struct Output {
    let json: Bool

    func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Pretty JSON, keys sorted, instants as on the wire.
    func document<Value: Encodable>(_ value: Value) throws {
        let encoder = WireCoding.makeEncoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        line(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// A command's answer: `value` as JSON for a script, else `sentence` for a person.
    func result<Value: Encodable>(_ value: Value, _ sentence: @autoclosure () -> String) throws {
        if json { try document(value) } else { line(sentence()) }
    }

    /// One JSON object on one line (a stream of them is NDJSON).
    func compact<Value: Encodable>(_ value: Value) throws {
        line(String(decoding: try WireCoding.makeEncoder().encode(value), as: UTF8.self))
    }

    /// Columns padded to their widest cell, two spaces apart; the last column is not padded.
    func table(_ headers: [String], _ rows: [[String]]) {
        let widths = headers.indices.map { column in
            ([headers[column]] + rows.map { column < $0.count ? $0[column] : "" }).map(\.count).max() ?? 0
        }
        for row in [headers] + rows {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            line(cells.joined(separator: "  "))
        }
    }
}

/// Values as a person reads them.
enum Human {
    /// `45s`, `10m`, `1h 05m`.
    /// As people name it: iOS, iPadOS, Mac, …
    static func platform(_ platform: DevicePlatform) -> String {
        switch platform {
        case .ios: "iOS"
        case .ipados: "iPadOS"
        case .macos: "Mac"
        case .watchos: "watchOS"
        case .android: "Android"
        case .web: "Web"
        case .other: "Other"
        }
    }

    static func duration(_ seconds: Int) -> String {
        if seconds == 0 { return "0m" }
        if seconds < 60 { return "\(seconds)s" }
        let minutes = seconds / 60
        if minutes < 60 { return "\(minutes)m" }
        return "\(minutes / 60)h " + String(format: "%02dm", minutes % 60)
    }

    static func secondsValue(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `2.5 s`.
    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", secondsValue(duration))
    }

    /// An instant in this machine's time zone, to the second; `-` for none.
    static func instant(_ date: Date?) -> String {
        guard let date else { return "-" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }
}

extension JSONValue {
    /// A field's value in a table cell: whole numbers without a fraction, booleans as yes or no.
    var text: String {
        switch self {
        case .null: "-"
        case .bool(let value): value ? "yes" : "no"
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .string(let value): value
        case .array, .object: (try? String(decoding: WireCoding.makeEncoder().encode(self), as: UTF8.self)) ?? "?"
        }
    }
}
