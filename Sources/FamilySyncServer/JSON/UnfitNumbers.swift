import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// A number its member's type cannot hold, named (PROTOCOL §1.1): `4.1` or `1e30` where an integer
/// is declared, `1e400` anywhere. Foundation's `JSONDecoder` refuses these as "not valid JSON", with
/// an empty coding path, so the answer could not say which member. Only then (a body that decodes
/// pays nothing) the body is decoded once more with every such number turned into a string that
/// says what was wrong with it: a floating-point member reads the string as a number
/// (`nonConformingFloatDecodingStrategy`), an integer member refuses it with a type mismatch that
/// carries the path, and the same member is the first to fail, as the number stood in the same place.
enum UnfitNumbers {
    /// What is wrong with a number, spelled as the string put in its place.
    enum Kind: String {
        /// Fits a `Double` but is not an integer an `Int` holds: it has a fraction.
        case fraction = "familysync.number.fraction"
        /// A whole number beyond `Int`.
        case large = "familysync.number.large"
        /// Beyond what a `Double` holds (`1e400`): refused by every numeric member.
        case beyondDouble = "familysync.number.beyond"
    }

    /// §1.1's error for the first member whose number its type cannot hold, or nil when the body
    /// holds no such number (it is not valid JSON, or something else failed).
    static func diagnose<Value: Decodable>(_ type: Value.Type, in data: Data) -> FamilySyncError? {
        guard let marked = markingUnfit(data) else { return nil }
        let decoder = WireCoding.makeDecoder()
        // Fractions and large integers read as numbers where a number is declared (nan, +infinity);
        // `beyondDouble` is not listed, so that every numeric member refuses it.
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: Kind.large.rawValue, negativeInfinity: "familysync.number.unused", nan: Kind.fraction.rawValue
        )
        let mismatch: DecodingError
        do {
            _ = try decoder.decode(Value.self, from: marked)
            return nil
        } catch let error as DecodingError {
            mismatch = error
        } catch {
            return nil
        }
        guard case .typeMismatch(let expected, let context) = mismatch, let kind = kind(at: context.codingPath, in: marked) else { return nil }
        let field = mismatch.fieldPath
        if let integer = expected as? any FixedWidthInteger.Type {
            if kind == .fraction { return .badRequest("The number has a fraction; expected an integer.", field: field) }
            return .badRequest("The number is out of range; expected an integer \(range(of: integer)).", field: field)
        }
        if expected is any BinaryFloatingPoint.Type, kind == .beyondDouble {
            return .badRequest("The number is out of range; expected a number from -\(Double.greatestFiniteMagnitude) to \(Double.greatestFiniteMagnitude).", field: field)
        }
        return nil
    }

    private static func range<Integer: FixedWidthInteger>(of type: Integer.Type) -> String {
        "from \(Integer.min) to \(Integer.max)"
    }

    /// Which marker stands at `path` of the marked body.
    private static func kind(at path: [any CodingKey], in marked: Data) -> Kind? {
        guard var value = try? JSONSerialization.jsonObject(with: marked, options: [.fragmentsAllowed]) else { return nil }
        for key in path {
            if let index = key.intValue, let array = value as? [Any], array.indices.contains(index) {
                value = array[index]
            } else if let object = value as? [String: Any], let member = object[key.stringValue] {
                value = member
            } else {
                return nil
            }
        }
        return (value as? String).flatMap(Kind.init(rawValue:))
    }

    /// The body with every number that an `Int` or a `Double` member would refuse replaced by its
    /// marker; nil when there is none. Only values are replaced (outside strings, never a key), so
    /// the marked body is valid JSON exactly when the body is.
    static func markingUnfit(_ data: Data) -> Data? {
        let bytes = [UInt8](data)
        var marked: [UInt8] = []
        marked.reserveCapacity(bytes.count + 64)
        var replaced = false
        // Per open container: whether it is an object, and, if so, whether a key comes next.
        var stack: [(isObject: Bool, expectingKey: Bool)] = []
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "\""):
                var end = i + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                end = min(end + 1, bytes.count)
                marked += bytes[i..<end]
                i = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                stack.append((byte == UInt8(ascii: "{"), true))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
            case UInt8(ascii: ":"):
                if !stack.isEmpty { stack[stack.count - 1].expectingKey = false }
            case UInt8(ascii: ","):
                if !stack.isEmpty { stack[stack.count - 1].expectingKey = true }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = i + 1
                while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
                let token = bytes[i..<end]
                let isKey = stack.last.map { $0.isObject && $0.expectingKey } ?? false
                if !isKey, let kind = kind(of: token) {
                    marked += Array("\"\(kind.rawValue)\"".utf8)
                    replaced = true
                } else {
                    marked += token
                }
                i = end
                continue
            default:
                break
            }
            marked.append(byte)
            i += 1
        }
        return replaced ? Data(marked) : nil
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): true
        default: false
        }
    }

    /// What an `Int` or a `Double` member would refuse in `token`, as Foundation's decoder judges
    /// it; nil when an `Int` member takes it (such a number must stay, or its member would fail in
    /// its place) or when both take it.
    static func kind(of token: ArraySlice<UInt8>) -> Kind? {
        guard isJSONNumber(token) else { return nil }
        let text = String(decoding: token, as: UTF8.self)
        guard let double = Double(text) else { return nil }
        let isPlainInteger = !token.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let fitsInteger: Bool
        if isPlainInteger {
            fitsInteger = Int(text) != nil
        } else if Int(exactly: double) == nil {
            fitsInteger = false
        } else if double.magnitude < 0x1p53 {
            fitsInteger = true
        } else {
            // Past 2^53 the decoder reads the digits themselves: ask it.
            fitsInteger = (try? JSONDecoder().decode(Int.self, from: Data(token))) != nil
        }
        if fitsInteger { return nil }
        // The decoder refuses what overflows to infinity, and what underflows to zero from digits
        // that are not all zeros; an underflow an `Int` member takes stays (above).
        let mantissaIsZero = !token.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }.contains { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }
        guard double.isFinite, double != 0 || mantissaIsZero else { return .beyondDouble }
        return double.rounded() == double && double.magnitude >= 0x1p63 ? .large : .fraction
    }

    /// RFC 8259's number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private static func isJSONNumber(_ token: ArraySlice<UInt8>) -> Bool {
        var i = token.startIndex
        func digits() -> Int {
            let start = i
            while i < token.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(token[i]) { i += 1 }
            return i - start
        }
        if i < token.endIndex, token[i] == UInt8(ascii: "-") { i += 1 }
        guard i < token.endIndex else { return false }
        if token[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
        if i < token.endIndex, token[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < token.endIndex, token[i] == UInt8(ascii: "e") || token[i] == UInt8(ascii: "E") {
            i += 1
            if i < token.endIndex, token[i] == UInt8(ascii: "+") || token[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == token.endIndex
    }
}
