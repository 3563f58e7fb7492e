@testable import FamilySyncCore
import Foundation
import PropertyBased
import Testing

/// `JSONValue(onePass:)` reads what Foundation's decoder reads, with the same value, and leaves to
/// it whatever it does not read in its plain form: the stores read every record's `jsonb` with it
/// and fall back to Foundation's decoder on nil.
@Suite struct JSONValueOnePassTests {
    @Test func everyGeneratedValueIsReadAsFoundationReadsIt() async {
        await propertyCheck(count: 400, input: JSONTextTests.value(depth: 3)) { value in
            // As `JSONText` writes it (how the stores bind it), and spaced as PostgreSQL prints jsonb.
            for text in [String(decoding: JSONText.bytes(value), as: UTF8.self), Self.spaced(value)] {
                let onePass = Self.onePass(text)
                #expect(onePass != nil, "not read in one pass: \(text)")
                #expect(onePass == Self.foundation(text), "\(text)")
            }
        }
    }

    /// Text as PostgreSQL prints jsonb: `", "` and `": "` between members, numbers as stored.
    @Test(arguments: [
        #"{"a": [1, 2.50, -0.125, 1e-7, 12345678901234567890], "b": {"c": null, "d": true}, "e": "x\"y\\z\n\u0001"}"#,
        #"{"ключ": "значение", "emoji": "👍🏽", "esc": "\ud83d\udc4d", "tab": "\t"}"#,
        #"[]"#, #"{}"#, #" {"a" : [ ] } "#, #""just a string""#, "0", "-0", "null",
    ])
    func postgresPrintedTextIsReadAsFoundationReadsIt(_ text: String) {
        let onePass = Self.onePass(text)
        #expect(onePass != nil)
        #expect(onePass == Self.foundation(text))
    }

    /// What the reader leaves to Foundation's decoder: nesting past 64, a member named twice, a
    /// number a `Double` cannot hold, text that is not JSON or not UTF-8, a lone surrogate.
    @Test(arguments: [
        String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
        #"{"k": 1, "k": 2}"#, "1e400", "1e-400", #"{"a": 01}"#, #"{"a": 1,}"#, #"{"a": 1} x"#,
        #""\ud800""#, #"{"a": nul}"#, "\"tab\tin\"", "",
    ])
    func whatTheReaderLeavesToFoundation(_ text: String) {
        #expect(Self.onePass(text) == nil)
    }

    @Test func invalidUTF8IsLeftToFoundation() {
        let bytes: [UInt8] = Array(#"{"a": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(bytes.withUnsafeBytes { JSONValue(onePass: $0) } == nil)
    }

    static func onePass(_ text: String) -> JSONValue? {
        Array(text.utf8).withUnsafeBytes { JSONValue(onePass: $0) }
    }

    static func foundation(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// `value` written with white space where PostgreSQL's jsonb output has it.
    static func spaced(_ value: JSONValue) -> String {
        switch value {
        case .array(let elements): "[" + elements.map(spaced).joined(separator: ", ") + "]"
        case .object(let members):
            "{" + members.map { String(decoding: JSONText.bytes(.string($0.key)), as: UTF8.self) + ": " + spaced($0.value) }.joined(separator: ", ") + "}"
        default: String(decoding: JSONText.bytes(value), as: UTF8.self)
        }
    }
}
