@testable import FamilySyncServer
import FamilySyncCore
import Foundation
import Testing

/// `UnfitNumbers` judges numbers as Foundation's decoder does: it never marks one an `Int` member
/// takes (that member would fail in the real one's place), and marks every one neither an `Int`
/// nor a `Double` member takes.
@Suite struct UnfitNumbersTests {
    struct Probe: Decodable { var n: Int }
    struct DoubleProbe: Decodable { var n: Double }

    static func decoderTakes<Value: Decodable>(_ type: Value.Type, _ token: String) -> Bool {
        (try? JSONDecoder().decode(Value.self, from: Data(#"{"n":\#(token)}"#.utf8))) != nil
    }

    static let edges = [
        "0", "-0", "0.0", "-0.0", "0e5", "0.000e10", "1e3", "1E+2", "1.0", "60.0", "1.5e1", "100e-2", "4.1", "60.5", "1e-2", "1e-400", "-1e-400",
        "1e30", "1e309", "-1e309", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "9223372036854775807.0", "9.223372036854775807e18", "9007199254740993", "9007199254740993.0", "9007199254740993.5",
        "1234567890123456789.0", "1234567890123456789012e-3", "123456789012345678901234567890", "1.7976931348623157e308", "1.7976931348623159e308",
        "1.00000000000000000001",
    ]

    static func randomTokens(_ count: Int) -> [String] {
        var generator = SystemRandomNumberGenerator()
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) }) }
        return (0..<count).map { _ in
            var token = Bool.random() ? "-" : ""
            token += Int.random(in: 0...5) == 0 ? "0" : String(Int.random(in: 1...9)) + digits(Int.random(in: 0...21))
            if Bool.random() { token += "." + digits(Int.random(in: 1...5)) }
            if Int.random(in: 0...2) == 0 { token += (Bool.random() ? "e" : "E") + ["", "+", "-"].randomElement()! + String(Int.random(in: 0...400)) }
            return token
        }
    }

    @Test func judgesAsTheDecoderDoes() {
        for token in Self.edges + Self.randomTokens(3000) {
            let kind = UnfitNumbers.kind(of: ArraySlice(token.utf8))
            let takesInteger = Self.decoderTakes(Probe.self, token), takesDouble = Self.decoderTakes(DoubleProbe.self, token)
            if takesInteger {
                #expect(kind == nil, "\(token): an Int member takes it")
            } else if !takesDouble {
                #expect(kind == .beyondDouble, "\(token): neither takes it")
            } else {
                #expect(kind == .fraction || kind == .large, "\(token): only a Double member takes it")
            }
        }
    }

    @Test(arguments: [
        (#"{"a":4.1,"b":[1,2.5,"3.5"],"c":"x\"1.5"}"#, #"{"a":"familysync.number.fraction","b":[1,"familysync.number.fraction","3.5"],"c":"x\"1.5"}"#),
        (#"[1e30, -1e400, 7]"#, #"["familysync.number.large", "familysync.number.beyond", 7]"#),
        // A number where a key belongs is left for the parser to refuse.
        (#"{1.5: 2.5}"#, #"{1.5: "familysync.number.fraction"}"#),
    ])
    func marksValuesOnly(_ body: String, _ marked: String) {
        #expect(UnfitNumbers.markingUnfit(Data(body.utf8)).map { String(decoding: $0, as: UTF8.self) } == marked)
    }

    @Test func leavesBodiesWithoutUnfitNumbers() {
        #expect(UnfitNumbers.markingUnfit(Data(#"{"a":4,"b":[1e3,60.0,-0],"c":"4.1"}"#.utf8)) == nil)
    }
}
