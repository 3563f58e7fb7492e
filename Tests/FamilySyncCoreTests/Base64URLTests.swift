@testable import FamilySyncCore
import Foundation
import PropertyBased
import Testing

/// Tokens' base64url, byte by byte (`Base64URL`), against the way through Foundation's `Data` it
/// replaced (kept here as the reference): the same text for any bytes, and for any text the same
/// verdict, its one spelling only.
@Suite struct Base64URLTests {
    @Test func anyBytesAreWrittenAsFoundationWritesThemAndReadBack() async {
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...90)) { bytes in
            let text = Base64URL.encode(bytes)
            #expect(text == Self.referenceEncode(bytes))
            #expect(Base64URL.decode(text) == bytes, "\(text)")
        }
    }

    /// Texts over the alphabet and a few bytes outside it, of every length modulo 4.
    @Test func anyTextGetsTheVerdictFoundationGaveIt() async {
        let byte = Gen.element(of: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_AQgw=+/. é".unicodeScalars))
            .map { Character($0!) }
        await propertyCheck(count: 2_000, input: byte.string(of: 0...14)) { text in
            #expect(Base64URL.decode(text) == Self.referenceDecode(text), "\(text)")
        }
    }

    /// Each of the non-canonical spellings of one byte and of two: unused bits set.
    @Test func onlyTheCanonicalSpellingIsRead() {
        #expect(Base64URL.decode("AA") == [0])
        #expect(Base64URL.decode("AB") == nil)
        #expect(Base64URL.decode("AAA") == [0, 0])
        #expect(Base64URL.decode("AAB") == nil)
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("AA==") == nil)
        #expect(Base64URL.decode("") == [])
    }

    static func referenceEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func referenceDecode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 == 0x2d || $0 == 0x5f || (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) }) else { return nil }
        var base64: [UInt8] = text.utf8.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }
        base64 += repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
        guard let bytes = Data(base64Encoded: Data(base64)).map(Array.init), referenceEncode(bytes) == text else { return nil }
        return bytes
    }
}
