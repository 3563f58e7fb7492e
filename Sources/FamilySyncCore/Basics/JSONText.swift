/// JSON text as Foundation's `JSONEncoder` writes it, without its cost: objects' keys sorted in the
/// order of their UTF-8 bytes, `"`, `\` and control characters escaped (`\b`, `\f`, `\n`, `\r`,
/// `\t`, else `\u00xx`), `/` escaped only when asked (the encoder's default; the wire's encoder
/// leaves it), numbers as `JSONValue` encodes them. One implementation for the server's answers,
/// the fields bound as jsonb and the fields' size limit (`JSONTextTests` holds it to the encoder).
public enum JSONText {
    /// `text` quoted, handed to `write` in runs: the text's own bytes between escapes, and each
    /// escape.
    public static func quote(_ text: String, escapingSlashes: Bool = false, _ write: (UnsafeRawBufferPointer) -> Void) {
        var text = text
        text.withUTF8 { bytes in
            write(quoteMark)
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (escapingSlashes && byte == UInt8(ascii: "/")) else { continue }
                if index > start { write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index])) }
                escape(byte, write)
                start = index + 1
            }
            if bytes.count > start { write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...])) }
            write(quoteMark)
        }
    }

    private static var quoteMark: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: StaticString("\"").utf8Start, count: 1)
    }

    private static func escape(_ byte: UInt8, _ write: (UnsafeRawBufferPointer) -> Void) {
        let short: UInt8? = switch byte {
        case UInt8(ascii: "\""): UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): UInt8(ascii: "\\")
        case UInt8(ascii: "/"): UInt8(ascii: "/")
        case 0x0A: UInt8(ascii: "n")
        case 0x0D: UInt8(ascii: "r")
        case 0x09: UInt8(ascii: "t")
        case 0x08: UInt8(ascii: "b")
        case 0x0C: UInt8(ascii: "f")
        default: nil
        }
        if let short {
            withUnsafeBytes(of: (UInt8(ascii: "\\"), short)) { write($0) }
        } else {
            let digits = Array("0123456789abcdef".utf8)
            withUnsafeBytes(of: (UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)])) { write($0) }
        }
    }

    /// A `Double` as the encoder writes one: its shortest form, without a trailing `.0`.
    public static func number(_ value: Double) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// A `JSONValue`'s number as it encodes itself: whole numbers as integers.
    public static func valueNumber(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 9.0e15 ? String(Int64(value)) : number(value)
    }

    /// `value`'s text, handed to `write` in runs.
    public static func append(_ value: JSONValue, escapingSlashes: Bool = false, _ write: (UnsafeRawBufferPointer) -> Void) {
        func text(_ part: String) {
            var part = part
            part.withUTF8 { write(UnsafeRawBufferPointer($0)) }
        }
        func byte(_ byte: UInt8) {
            withUnsafeBytes(of: byte) { write($0) }
        }
        switch value {
        case .null: text("null")
        case .bool(let flag): text(flag ? "true" : "false")
        case .number(let number): text(valueNumber(number))
        case .string(let string): quote(string, escapingSlashes: escapingSlashes, write)
        case .array(let elements):
            byte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { byte(UInt8(ascii: ",")) }
                append(element, escapingSlashes: escapingSlashes, write)
            }
            byte(UInt8(ascii: "]"))
        case .object(let members):
            byte(UInt8(ascii: "{"))
            for (index, (key, member)) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if index > 0 { byte(UInt8(ascii: ",")) }
                quote(key, escapingSlashes: escapingSlashes, write)
                byte(UInt8(ascii: ":"))
                append(member, escapingSlashes: escapingSlashes, write)
            }
            byte(UInt8(ascii: "}"))
        }
    }

    /// `value`'s text.
    public static func bytes(_ value: JSONValue, escapingSlashes: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        append(value, escapingSlashes: escapingSlashes) { out.append(contentsOf: $0) }
        return out
    }
}
