@testable import FamilySyncCore
import Foundation
import PropertyBased
import Testing

/// `JSONText` writes what Foundation's `JSONEncoder` writes for a `JSONValue`: with slashes
/// escaped (the encoder's default, which the fields' size limit counts) and without (the wire's).
@Suite struct JSONTextTests {
    static let scalar = Gen.oneOf(
        Gen.unicodeScalar(in: "\u{0}"..."\u{7F}"), Gen.unicodeScalar(in: "\u{0}"..."\u{20}"),
        Gen.unicodeScalar(in: "\u{80}"..."\u{D7FF}"), Gen.unicodeScalar(in: "\u{E000}"..."\u{10FFFF}")
    )
    static let text = scalar.map { Character($0) }.string(of: 0...6)
    static let number = Gen.oneOf(
        Gen.double(in: -1e20...1e20), Gen.double(in: -1...1), Gen.int(in: Int.min...Int.max).map(Double.init),
        Gen.element(of: [0, -0.0, 1e-7, 1e16, 9e15, 8.999e15, 0.1, 1e300, -1e-300, 5e-324] as [Double]).map { $0! }
    )

    static func value(depth: Int) -> Generator<JSONValue, some Sequence & Sendable> {
        Generator(run: { rng in
            var any: any RandomNumberGenerator = rng
            defer { rng = any as! any SeededRandomNumberGenerator }
            return make(depth: depth, &any)
        })
    }

    static func make(depth: Int, _ rng: inout any RandomNumberGenerator) -> JSONValue {
        func string() -> String {
            var seeded = rng as! any SeededRandomNumberGenerator
            defer { rng = seeded }
            return text.run(using: &seeded)
        }
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2:
            var seeded = rng as! any SeededRandomNumberGenerator
            defer { rng = seeded }
            return .number(number.run(using: &seeded))
        case 3: return .string(string() + "/")
        case 4: return .string(string())
        case 5: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in make(depth: depth - 1, &rng) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &rng) { members[string() + ["", "/", "\u{301}", "é", "Z"].randomElement(using: &rng)!] = make(depth: depth - 1, &rng) }
            return .object(members)
        }
    }

    @Test func theEncodersBytes() async throws {
        let escaping = JSONEncoder()
        escaping.outputFormatting = [.sortedKeys]
        let wire = JSONEncoder()
        wire.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        await propertyCheck(count: 400, input: Self.value(depth: 3)) { value in
            let fields: [String: JSONValue] = ["v": value, "a/b": .string("c/d")]
            let encoded = Array((try? escaping.encode(fields)) ?? Data())
            #expect(JSONText.bytes(.object(fields), escapingSlashes: true) == encoded)
            #expect(JSONText.bytes(value) == Array((try? wire.encode(value)) ?? Data()))
            #expect(RecordSchema.serializedSize(of: fields) == encoded.count)
        }
    }
}
