import FamilySyncCore
import Foundation
import NIOCore

/// JSON written straight into a response's buffer, as `JSONEncoder.wire` writes it: keys in the
/// order the caller gives (sorted, by convention, as the encoder sorts them), instants as
/// `Instant.format`, `"`, `\` and control characters escaped, `/` not. The hot paths' answers
/// (`WireJSONWritable`) go out this way; `WireJSONWriterTests` holds each to the encoder's bytes.
struct WireJSONWriter {
    private(set) var buffer: ByteBuffer
    /// Per open object or array: whether a member or element was written, for the commas.
    private var hasItems: [Bool] = []

    init(capacity: Int = 512) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    // MARK: Structure

    mutating func object(_ members: (inout WireJSONWriter) -> Void) {
        separate()
        buffer.writeStaticString("{")
        hasItems.append(false)
        members(&self)
        hasItems.removeLast()
        buffer.writeStaticString("}")
    }

    mutating func array<Element>(_ elements: some Sequence<Element>, _ write: (inout WireJSONWriter, Element) -> Void) {
        separate()
        buffer.writeStaticString("[")
        hasItems.append(false)
        for element in elements { write(&self, element) }
        hasItems.removeLast()
        buffer.writeStaticString("]")
    }

    /// A member's key; its value is the next thing written.
    mutating func key(_ key: StaticString) {
        separate()
        buffer.writeStaticString("\"")
        buffer.writeStaticString(key)
        buffer.writeStaticString("\":")
        // The value that follows is not an item of its own.
        hasItems[hasItems.count - 1] = false
    }

    /// A member whose key is not known until run time (a record's fields).
    mutating func key(_ key: String) {
        separate()
        writeQuoted(key)
        buffer.writeStaticString(":")
        hasItems[hasItems.count - 1] = false
    }

    /// The comma before a second member or element; marks this one written.
    private mutating func separate() {
        guard let last = hasItems.last else { return }
        if last { buffer.writeStaticString(",") }
        hasItems[hasItems.count - 1] = true
    }

    // MARK: Values

    mutating func string(_ text: String) {
        separate()
        writeQuoted(text)
    }

    mutating func string(_ text: String?) {
        if let text { string(text) } else { null() }
    }

    mutating func int(_ value: some FixedWidthInteger) {
        separate()
        buffer.writeString(String(value))
    }

    mutating func int(_ value: (some FixedWidthInteger)?) {
        if let value { int(value) } else { null() }
    }

    /// A finite number as the encoder writes a `Double`: its shortest form, without a `.0`.
    mutating func double(_ value: Double) {
        separate()
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        buffer.writeString(text)
    }

    mutating func double(_ value: Double?) {
        if let value { double(value) } else { null() }
    }

    mutating func bool(_ value: Bool) {
        separate()
        buffer.writeStaticString(value ? "true" : "false")
    }

    mutating func instant(_ date: Date) {
        separate()
        buffer.writeStaticString("\"")
        buffer.writeString(Instant.format(date))
        buffer.writeStaticString("\"")
    }

    mutating func instant(_ date: Date?) {
        if let date { instant(date) } else { null() }
    }

    mutating func null() {
        separate()
        buffer.writeStaticString("null")
    }

    /// Any JSON value, its objects' keys sorted.
    mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number):
            // As `JSONValue` encodes itself: whole numbers as integers.
            if number.rounded() == number, abs(number) < 9.0e15 { int(Int64(number)) } else { double(number) }
        case .string(let text): string(text)
        case .array(let elements): array(elements) { writer, element in writer.value(element) }
        case .object(let members):
            // In the order of their UTF-8 bytes, as the encoder sorts keys (not `String`'s
            // order, which compares them normalised).
            object { writer in
                for (key, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                    writer.key(key)
                    writer.value(member)
                }
            }
        }
    }

    private mutating func writeQuoted(_ text: String) {
        Self.writeQuoted(text, into: &buffer)
    }

    /// A JSON string: quoted, with `"`, `\` and the control characters escaped (RFC 8259 §7), as
    /// the encoder escapes them.
    static func writeQuoted(_ text: String, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("\"")
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<index])))
                switch byte {
                case UInt8(ascii: "\""): buffer.writeStaticString(#"\""#)
                case UInt8(ascii: "\\"): buffer.writeStaticString(#"\\"#)
                case UInt8(ascii: "\n"): buffer.writeStaticString(#"\n"#)
                case UInt8(ascii: "\r"): buffer.writeStaticString(#"\r"#)
                case UInt8(ascii: "\t"): buffer.writeStaticString(#"\t"#)
                case 0x08: buffer.writeStaticString(#"\b"#)
                case 0x0C: buffer.writeStaticString(#"\f"#)
                default:
                    buffer.writeStaticString(#"\u00"#)
                    buffer.writeInteger(Self.hexDigit(byte >> 4))
                    buffer.writeInteger(Self.hexDigit(byte & 0xF))
                }
                start = index + 1
            }
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...])))
        }
        buffer.writeStaticString("\"")
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}

/// An answer written straight into its buffer (`WireJSONWriter`) rather than through
/// `JSONEncoder`: the bodies of the hot paths.
protocol WireJSONWritable {
    func write(to writer: inout WireJSONWriter)
    /// Room to start with, so that a big answer is not grown many times over.
    var estimatedBytes: Int { get }
}

extension WireJSONWritable {
    var estimatedBytes: Int { 1024 }
}
