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
    /// A member's key not written yet: it goes out with the member's value, and not at all when
    /// nothing is (a member left out).
    private var pendingKey: String?

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

    /// An object of `Keys`' members, in the order the cases are declared (the encoder's sorted
    /// order): `member` writes each one's value, or nothing to leave the member out. The switch
    /// over the keys is exhaustive, so every member of the type is written or left out on purpose.
    mutating func object<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type, _ member: (inout WireJSONWriter, Keys) -> Void) {
        object { w in
            for key in Keys.allCases {
                w.pendingKey = key.stringValue
                member(&w, key)
                w.pendingKey = nil
            }
        }
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
        if let pending = pendingKey {
            pendingKey = nil
            key(pending)
        }
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

    /// A finite number as the encoder writes a `Double`.
    mutating func double(_ value: Double) {
        separate()
        buffer.writeString(JSONText.number(value))
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

    /// Any JSON value as `JSONValue` encodes itself, its objects' keys sorted.
    mutating func value(_ value: JSONValue) {
        separate()
        JSONText.append(value) { buffer.writeBytes($0) }
    }

    private mutating func writeQuoted(_ text: String) {
        Self.writeQuoted(text, into: &buffer)
    }

    /// A JSON string as the encoder writes it (`JSONText`).
    static func writeQuoted(_ text: String, into buffer: inout ByteBuffer) {
        JSONText.quote(text) { buffer.writeBytes($0) }
    }
}
