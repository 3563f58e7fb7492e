/// A one-pass reader of JSON: the bytes read once, straight into the values wanted. The server
/// reads the hot paths' request bodies with it (FamilySyncServer's `OnePassDecodable`), and the
/// stores the `jsonb` that PostgreSQL sends back (`JSONValue(onePass:)`).
///
/// It reads only the plain form: known members once each, integers written as integers, strings
/// of valid UTF-8. At anything else (an unknown, repeated or missing member, `4.0` for an integer,
/// an escape it cannot decode, bad JSON, nesting past 64) it gives up with `Miss`, and the caller
/// decodes the strict way (Foundation's decoder), whose verdict and error stay the contract. So
/// this path only ever accepts what that one accepts, with the same value (`OnePassJSONTests`,
/// `JSONValueOnePassTests`).
package struct OnePassJSON {
    /// Not the plain form: decode the strict way.
    package struct Miss: Error {
        package init() {}
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// How deep free-form values nest before the strict way is left to say what it thinks.
    private var depth = 0
    private static let maxDepth = 64
    /// A request's body: what a request may not carry (a NUL in a string, a free-form integer a
    /// double cannot keep, `FreeFormNumbers`) is a miss, for the strict way to refuse naming its
    /// member. The stores' jsonb, which PostgreSQL checked when it was written, is read as it is.
    private let readsARequest: Bool

    private init(_ bytes: UnsafeRawBufferPointer, readsARequest: Bool) {
        self.bytes = bytes
        self.readsARequest = readsARequest
    }

    /// What `read` makes of the whole of `bytes` (white space around it allowed), or nil when
    /// they are not one value in the plain form.
    package static func reading<Value>(
        _ bytes: UnsafeRawBufferPointer, request: Bool = false, _ read: (inout OnePassJSON) throws(Miss) -> Value
    ) -> Value? {
        var reader = OnePassJSON(bytes, readsARequest: request)
        do throws(Miss) {
            let value = try read(&reader)
            reader.skipSpace()
            guard reader.index == bytes.count else { return nil }
            return value
        } catch {
            return nil
        }
    }

    // MARK: Structure

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The next byte after white space, not consumed.
    private mutating func peek() throws(Miss) -> UInt8 {
        skipSpace()
        guard index < bytes.count else { throw Miss() }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws(Miss) {
        guard try peek() == byte else { throw Miss() }
        index += 1
    }

    /// An object: `member` is called with each key and reads its value.
    package mutating func object(_ member: (inout OnePassJSON, String) throws(Miss) -> Void) throws(Miss) {
        try expect(UInt8(ascii: "{"))
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            let key = try string()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return
            default: throw Miss()
            }
        }
    }

    /// An array: `element` is called for each element and reads it.
    package mutating func array(_ element: (inout OnePassJSON) throws(Miss) -> Void) throws(Miss) {
        try expect(UInt8(ascii: "["))
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            try element(&self)
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return
            default: throw Miss()
            }
        }
    }

    // MARK: Scalars

    package mutating func bool() throws(Miss) -> Bool {
        if try literal("true") { return true }
        if try literal("false") { return false }
        throw Miss()
    }

    private mutating func literal(_ word: StaticString) throws(Miss) -> Bool {
        _ = try peek()
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// An integer written as one (`-?(0|[1-9][0-9]*)`) that fits; `4.0` and `4e0` are left to the
    /// strict way, which has its own view of them.
    package mutating func int64() throws(Miss) -> Int64 {
        let token = try numberToken()
        guard !token.isFractional, let value = Int64(token.text) else { throw Miss() }
        return value
    }

    package mutating func int() throws(Miss) -> Int {
        Int(try int64())
    }

    /// A finite number. One too small for a `Double` (`1e-400`) is left to the strict way, which
    /// refuses it rather than read 0.
    package mutating func double() throws(Miss) -> Double {
        let token = try numberToken()
        guard let value = Double(token.text), value.isFinite else { throw Miss() }
        if value == 0, token.text.prefix(while: { $0 != "e" && $0 != "E" }).contains(where: { ("1"..."9").contains($0) }) { throw Miss() }
        return value
    }

    /// A JSON number's text (RFC 8259 §6), and whether it has a fraction or an exponent.
    private mutating func numberToken() throws(Miss) -> (text: Substring, isFractional: Bool) {
        _ = try peek()
        let start = index
        func digit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digit(index) else { throw Miss() }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if digit(index) { throw Miss() }
        } else {
            while digit(index) { index += 1 }
        }
        var isFractional = false
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isFractional = true
            index += 1
            guard digit(index) else { throw Miss() }
            while digit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isFractional = true
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digit(index) else { throw Miss() }
            while digit(index) { index += 1 }
        }
        // Digits are ASCII: the bytes are a valid string as they are.
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return (Substring(text), isFractional)
    }

    /// A string of valid UTF-8 with the escapes of RFC 8259 §7; a lone surrogate is left to the
    /// strict way.
    package mutating func string() throws(Miss) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                guard let text else { throw Miss() }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw Miss() }
            index += 1
        }
        throw Miss()
    }

    /// The rest of a string that has an escape, from its first byte at `start`.
    private mutating func escapedString(from start: Int) throws(Miss) -> String {
        var utf8 = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw Miss() }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw Miss() }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { throw Miss() }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw Miss() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    // In a request, a NUL is the strict way's to refuse, naming its member.
                    guard !(readsARequest && scalar == 0), let unicode = Unicode.Scalar(scalar) else { throw Miss() }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default: throw Miss()
                }
            default:
                guard byte >= 0x20 else { throw Miss() }
                utf8.append(byte)
            }
        }
        throw Miss()
    }

    private mutating func hex4() throws(Miss) -> UInt32 {
        guard bytes.count - index >= 4 else { throw Miss() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Miss()
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Whether the next value is `null`, consumed if so: for the few members that take it.
    package mutating func null() throws(Miss) -> Bool {
        try literal("null")
    }

    /// Any JSON value, as a record's fields hold them; `null` is a value here. An object that
    /// names a member twice is left to the strict way.
    package mutating func value() throws(Miss) -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"): return .object(try freeObject())
        case UInt8(ascii: "["):
            depth += 1
            guard depth <= Self.maxDepth else { throw Miss() }
            var elements: [JSONValue] = []
            try array { reader throws(Miss) in elements.append(try reader.value()) }
            depth -= 1
            return .array(elements)
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try bool())
        case UInt8(ascii: "n"):
            guard try literal("null") else { throw Miss() }
            return .null
        default:
            let start = index
            let value = try double()
            // In a request, an integer a double cannot keep is the strict way's to refuse, naming its member.
            if readsARequest, index - start > 15,
                !FreeFormNumbers.isKept(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            {
                throw Miss()
            }
            return .number(value)
        }
    }

    /// A free-form object, such as a record's `fields`.
    package mutating func freeObject() throws(Miss) -> [String: JSONValue] {
        depth += 1
        guard depth <= Self.maxDepth else { throw Miss() }
        var members: [String: JSONValue] = [:]
        try object { reader, key throws(Miss) in
            guard members.updateValue(try reader.value(), forKey: key) == nil else { throw Miss() }
        }
        depth -= 1
        return members
    }
}

extension JSONValue {
    /// The JSON text `bytes` read in one pass (`OnePassJSON`); nil where that reader leaves the
    /// text to Foundation's decoder, which says what is wrong with it, if anything.
    package init?(onePass bytes: UnsafeRawBufferPointer) {
        guard let value = OnePassJSON.reading(bytes, { reader throws(OnePassJSON.Miss) in try reader.value() }) else { return nil }
        self = value
    }
}
