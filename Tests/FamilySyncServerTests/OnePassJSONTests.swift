import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import Foundation
import PropertyBased
import Testing

/// The one-pass reader of the hot paths' bodies agrees with strict decoding (`StrictJSON`, the
/// contract): a body it reads, strict decoding accepts with the same value; a body strict decoding
/// refuses, it never reads. Bodies are generated in the many ways clients write JSON (member order,
/// white space, escapes, number forms, optional members), then broken byte by byte and member by
/// member.
@Suite struct OnePassJSONTests {
    enum Body: CaseIterable, Sendable {
        case heartbeat, usage, totals, modify
    }

    // MARK: The property

    @Test(arguments: Body.allCases)
    func everyGeneratedBodyIsReadInOnePassAsStrictDecodingReadsIt(_ kind: Body) async {
        await propertyCheck(count: 300, input: Self.body(kind)) { text in
            let data = Data(text.utf8)
            let strict = Self.strict(kind, data)
            #expect(strict != nil, "strict decoding refused a generated body: \(text)")
            #expect(Self.onePass(kind, data) == strict, "\(text)")
        }
    }

    @Test(arguments: Body.allCases)
    func aBrokenBodyIsReadOnlyWhenStrictDecodingAcceptsIt(_ kind: Body) async {
        let broken = Generator(run: { rng in
            var any: any RandomNumberGenerator = rng
            defer { rng = any as! any SeededRandomNumberGenerator }
            var bytes = Array(Self.bodyText(kind, &any).utf8)
            for _ in 0..<Int.random(in: 1...3, using: &any) { Self.breakBody(&bytes, &any) }
            return bytes
        })
        await propertyCheck(count: 1500, input: broken) { bytes in
            let data = Data(bytes)
            let onePass = Self.onePass(kind, data)
            if let onePass {
                #expect(onePass == Self.strict(kind, data), "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
    }

    /// Every member a full body carries is one the reader knows: a full value as the wire writes
    /// it is read in one pass.
    @Test func aFullBodyAsTheWireWritesItIsReadInOnePass() throws {
        let date = Date(timeIntervalSince1970: 1_790_000_000.125)
        let error = ExtensionErrorBody(id: UUID(), timestamp: date, eventName: "e", action: "record_usage", success: false, errorDescription: "d", memoryUsageMB: 4.5)
        let heartbeat = HealthReportRequest(
            heartbeatAt: date, monitoringActive: true, memoryUsageMB: 12.5, notificationSequence: 41, errors: [error], appVersion: "2.4.1", osVersion: "18.1 (22B83)"
        )
        let session = UsageRecordBody(
            recordID: "r", logicalID: "l", displayName: "D", bundleIdentifier: "b", category: "gaming", sessionStart: date, sessionEnd: date,
            totalSeconds: 60, earnedPoints: 2, deviceID: "x", pickups: 3
        )
        let total = UsageTotalBody(logicalID: "l", displayName: "D", bundleIdentifier: "b", category: "gaming", totalSeconds: 60, pickups: 1, earnedPoints: 2)
        let record = RecordInput(recordName: "n", recordType: "AppConfiguration", fields: ["a": .array([.null, .bool(true), .number(1.5)])], recordChangeTag: "t", clientModifiedAt: date)
        try expectRead(heartbeat)
        try expectRead(UsageUploadRequest(timeZone: "Asia/Seoul", records: [session]))
        try expectRead(UsageTotalsRequest(timeZone: "Asia/Seoul", date: "2026-11-26", apps: [total]))
        try expectRead(ModifyRecordsRequest(operations: [RecordOperation(operationType: .forceReplace, record: record)], atomic: true))
    }

    private func expectRead<Value: Encodable & OnePassDecodable & Equatable>(_ value: Value) throws {
        let data = try JSONEncoder.wire.encode(value)
        #expect(data.withUnsafeBytes { OnePassJSON.decode(Value.self, from: $0) } == value, "\(String(decoding: data, as: UTF8.self))")
    }

    /// What the reader leaves to strict decoding, each of which strict decoding refuses or reads as
    /// it reads everything: the reader never decides these.
    @Test(arguments: [
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"memoryUsageMB":null}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"monitoringActive":false}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"battery":1}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"appVersion":null}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"osVersion":18}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"notificationSequence":4.0}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"notificationSequence":1e2}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"notificationSequence":99999999999999999999}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":1}"#,
        #"{"heartbeatAt":"2026-11-26T25:00:00Z","monitoringActive":true}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z"}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"memoryUsageMB":1e400}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"memoryUsageMB":1e-400}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"memoryUsageMB":-2.4e-324}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"errors":[{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","timestamp":"2026-11-26T10:00:00Z","eventName":"\udc00","action":"a","success":true}]}"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true} x"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,}"#,
        "\u{FEFF}{\"heartbeatAt\":\"2026-11-26T10:00:00Z\",\"monitoringActive\":true}",
        #"[{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true}]"#,
        #"{"heartbeatAt":"2026-11-26T10:00:00Z","monitoringActive":true,"errors":[{"id":"x"}]}"#,
    ])
    func whatTheReaderLeavesToStrictDecoding(_ text: String) {
        let data = Data(text.utf8)
        #expect(Self.onePass(.heartbeat, data) == nil)
    }

    @Test(arguments: [
        #"{"operations":[{"operationType":"create","record":{"recordName":"a\ud800","recordType":"T"}}]}"#,
        #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"T","fields":{"k":1,"k":2}}}]}"#,
        #"{"operations":[{"operationType":"upsert","record":{"recordName":"a","recordType":"T"}}]}"#,
        #"{"operations":[{"operationType":"create","record":{"recordName":"a","fields":{"k":01}}}]}"#,
        "{\"operations\":[{\"operationType\":\"create\",\"record\":{\"recordName\":\"a\",\"fields\":{\"k\":\"tab\tin\"}}}]}",
        #"{"operations":[{"operationType":"create","record":{"recordName":"a","fields":{"k":nul}}}]}"#,
        #"{"operations":null}"#,
    ])
    func whatTheReaderLeavesToStrictDecodingOfAModify(_ text: String) {
        #expect(Self.onePass(.modify, Data(text.utf8)) == nil)
    }

    @Test func invalidUTF8AndDeepNestingAreLeftToStrictDecoding() {
        var bytes = Array(#"{"operations":[{"operationType":"create","record":{"recordName":"a"#.utf8)
        bytes += [0xC3, 0x28]
        bytes += Array(#"","recordType":"T"}}]}"#.utf8)
        #expect(Self.onePass(.modify, Data(bytes)) == nil)
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let body = #"{"operations":[{"operationType":"create","record":{"recordName":"a","fields":{"k":"# + deep + "}}}]}"
        #expect(Self.onePass(.modify, Data(body.utf8)) == nil)
    }

    // MARK: Both ways, as one optional

    enum Decoded: Equatable {
        case heartbeat(HealthReportRequest)
        case usage(UsageUploadRequest)
        case totals(UsageTotalsRequest)
        case modify(ModifyRecordsRequest)
    }

    static func strict(_ kind: Body, _ data: Data) -> Decoded? {
        switch kind {
        case .heartbeat: (try? StrictJSON.decode(HealthReportRequest.self, from: data)).map(Decoded.heartbeat)
        case .usage: (try? StrictJSON.decode(UsageUploadRequest.self, from: data)).map(Decoded.usage)
        case .totals: (try? StrictJSON.decode(UsageTotalsRequest.self, from: data)).map(Decoded.totals)
        case .modify: (try? StrictJSON.decode(ModifyRecordsRequest.self, from: data)).map(Decoded.modify)
        }
    }

    static func onePass(_ kind: Body, _ data: Data) -> Decoded? {
        data.withUnsafeBytes { bytes in
            switch kind {
            case .heartbeat: OnePassJSON.decode(HealthReportRequest.self, from: bytes).map(Decoded.heartbeat)
            case .usage: OnePassJSON.decode(UsageUploadRequest.self, from: bytes).map(Decoded.usage)
            case .totals: OnePassJSON.decode(UsageTotalsRequest.self, from: bytes).map(Decoded.totals)
            case .modify: OnePassJSON.decode(ModifyRecordsRequest.self, from: bytes).map(Decoded.modify)
            }
        }
    }

    // MARK: Generating bodies

    static func body(_ kind: Body) -> Generator<String, some Sequence & Sendable> {
        Generator(run: { rng in
            var any: any RandomNumberGenerator = rng
            defer { rng = any as! any SeededRandomNumberGenerator }
            return bodyText(kind, &any)
        })
    }

    static func bodyText(_ kind: Body, _ rng: inout any RandomNumberGenerator) -> String {
        var writer = BodyWriter()
        switch kind {
        case .heartbeat:
            writer.object(&rng, required: [
                "heartbeatAt": { w, r in w.instant(&r) },
                "monitoringActive": { w, r in w.bool(&r) },
            ], optional: [
                "memoryUsageMB": { w, r in w.double(&r) },
                "notificationSequence": { w, r in w.integer(&r, in: -5...Int64.max) },
                "appVersion": { w, r in w.string(&r) }, "osVersion": { w, r in w.string(&r) },
                "errors": { w, r in
                    w.array(&r, count: 0...2) { w, r in
                        w.object(&r, required: [
                            "id": { w, r in w.uuid(&r) }, "timestamp": { w, r in w.instant(&r) }, "eventName": { w, r in w.string(&r) },
                            "action": { w, r in w.string(&r) }, "success": { w, r in w.bool(&r) },
                        ], optional: [
                            "errorDescription": { w, r in Bool.random(using: &r) ? w.raw("null") : w.string(&r) },
                            "memoryUsageMB": { w, r in Bool.random(using: &r) ? w.raw("null") : w.double(&r) },
                        ])
                    }
                },
            ])
        case .usage:
            writer.object(&rng, required: [
                "records": { w, r in
                    w.array(&r, count: 0...4) { w, r in
                        w.object(&r, required: [
                            "recordID": { w, r in w.string(&r) }, "logicalID": { w, r in w.string(&r) }, "displayName": { w, r in w.string(&r) },
                            "sessionStart": { w, r in w.instant(&r) }, "sessionEnd": { w, r in w.instant(&r) },
                            "totalSeconds": { w, r in w.integer(&r, in: -10...100_000) },
                        ], optional: [
                            "bundleIdentifier": { w, r in w.string(&r) }, "category": { w, r in w.string(&r) },
                            "earnedPoints": { w, r in w.integer(&r, in: 0...1000) }, "deviceID": { w, r in w.string(&r) },
                            "pickups": { w, r in w.integer(&r, in: 0...1000) },
                        ])
                    }
                },
            ], optional: ["timeZone": { w, r in w.string(&r) }])
        case .totals:
            writer.object(&rng, required: [
                "date": { w, r in w.string(&r) },
                "apps": { w, r in
                    w.array(&r, count: 0...4) { w, r in
                        w.object(&r, required: [
                            "logicalID": { w, r in w.string(&r) }, "displayName": { w, r in w.string(&r) },
                            "totalSeconds": { w, r in w.integer(&r, in: -10...100_000) },
                        ], optional: [
                            "bundleIdentifier": { w, r in w.string(&r) }, "category": { w, r in w.string(&r) },
                            "pickups": { w, r in w.integer(&r, in: 0...1000) }, "earnedPoints": { w, r in w.integer(&r, in: 0...1000) },
                        ])
                    }
                },
            ], optional: ["timeZone": { w, r in w.string(&r) }])
        case .modify:
            writer.object(&rng, required: [
                "operations": { w, r in
                    w.array(&r, count: 0...4) { w, r in
                        w.object(&r, required: [
                            "operationType": { w, r in w.raw("\"\(RecordOperationType.allCases.randomElement(using: &r)!.rawValue)\"") },
                            "record": { w, r in
                                w.object(&r, required: ["recordName": { w, r in w.string(&r) }], optional: [
                                    "recordType": { w, r in w.string(&r) }, "fields": { w, r in w.freeObject(&r, depth: 0) },
                                    "recordChangeTag": { w, r in w.string(&r) }, "clientModifiedAt": { w, r in w.instant(&r) },
                                ])
                            },
                        ], optional: [:])
                    }
                },
            ], optional: ["atomic": { w, r in w.bool(&r) }])
        }
        return writer.text
    }

    /// Breaks a body: a byte replaced, dropped or doubled, a value made null, a member repeated or
    /// added, an integer written as a fraction.
    static func breakBody(_ bytes: inout [UInt8], _ rng: inout any RandomNumberGenerator) {
        guard !bytes.isEmpty else { return }
        let at = Int.random(in: 0..<bytes.count, using: &rng)
        let significant = Array(#"{}[]",:\ 0.-+eE1nultrfa"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF, 0xED, 0xA0]
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: bytes[at] = significant.randomElement(using: &rng)!
        case 1: bytes.remove(at: at)
        case 2: bytes.insert(significant.randomElement(using: &rng)!, at: at)
        case 3:
            // The value after a colon made null.
            if let colon = bytes[at...].firstIndex(of: UInt8(ascii: ":")) {
                let end = bytes[(colon + 1)...].firstIndex { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") } ?? bytes.count
                bytes.replaceSubrange((colon + 1)..<end, with: Array("null".utf8))
            }
        case 4:
            // A member repeated: the text from an opening quote after `{` or `,` to the next `,` again.
            if let start = bytes[at...].firstIndex(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "{") }),
                let end = bytes[(start + 1)...].firstIndex(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") }), end > start + 1
            {
                let member = Array(bytes[(start + 1)..<end])
                bytes.insert(contentsOf: member + [UInt8(ascii: ",")], at: start + 1)
            }
        case 5:
            if let brace = bytes[at...].firstIndex(of: UInt8(ascii: "{")) {
                bytes.insert(contentsOf: Array(#""extra":1,"#.utf8), at: brace + 1)
            }
        case 6:
            // An integer given a fraction or an exponent.
            if let digit = bytes[at...].firstIndex(where: { (0x30...0x39).contains($0) }) {
                bytes.insert(contentsOf: Array([".0", "e0", ".5", "E+1"].randomElement(using: &rng)!.utf8), at: digit + 1)
            }
        default:
            let end = min(bytes.count, at + Int.random(in: 1...8, using: &rng))
            bytes.insert(contentsOf: bytes[at..<end], at: at)
        }
    }
}

/// Writes JSON text the many ways clients write it.
private struct BodyWriter {
    typealias Member = (inout BodyWriter, inout any RandomNumberGenerator) -> Void
    var text = ""

    mutating func raw(_ part: String) { text += part }

    mutating func space(_ rng: inout any RandomNumberGenerator) {
        if Int.random(in: 0..<4, using: &rng) == 0 { text += [" ", "\n", "\t", "\r\n  "].randomElement(using: &rng)! }
    }

    mutating func object(_ rng: inout any RandomNumberGenerator, required: KeyValuePairs<String, Member>, optional: KeyValuePairs<String, Member>) {
        var members = Array(required)
        members += optional.filter { _ in Bool.random(using: &rng) }
        members.shuffle(using: &rng)
        text += "{"
        for (index, (key, write)) in members.enumerated() {
            if index > 0 { text += "," }
            space(&rng)
            // Now and then a member's name with its first letter escaped, as some writers do.
            text += Int.random(in: 0..<8, using: &rng) == 0 ? "\"\\u00\(String(key.utf8.first!, radix: 16))\(key.dropFirst())\"" : "\"\(key)\""
            space(&rng)
            text += ":"
            space(&rng)
            write(&self, &rng)
            space(&rng)
        }
        text += "}"
    }

    mutating func array(_ rng: inout any RandomNumberGenerator, count: ClosedRange<Int>, _ element: Member) {
        text += "["
        for index in 0..<Int.random(in: count, using: &rng) {
            if index > 0 { text += "," }
            space(&rng)
            element(&self, &rng)
        }
        text += "]"
    }

    mutating func bool(_ rng: inout any RandomNumberGenerator) { text += Bool.random(using: &rng) ? "true" : "false" }

    mutating func integer(_ rng: inout any RandomNumberGenerator, in range: ClosedRange<Int64>) {
        let value = [range.lowerBound, range.upperBound, 0, Int64.random(in: range, using: &rng)].randomElement(using: &rng)!
        text += range.contains(value) ? String(value) : String(range.lowerBound)
    }

    mutating func double(_ rng: inout any RandomNumberGenerator) {
        let value = Double.random(in: -1e6...1e6, using: &rng)
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: text += String(Int(value))
        case 1: text += "\(value)"
        case 2: text += String(format: "%.3e", value)
        case 3: text += String(format: "%.2E", value / 1e9)
        default: text += ["0", "-0", "0.5", "1e-7", "123456789012345678901234567890", "0e-400", "0.000e-999", "5e-324", "1.7976931348623157e308"].randomElement(using: &rng)!
        }
    }

    mutating func uuid(_ rng: inout any RandomNumberGenerator) {
        let b = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let id = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])).uuidString
        text += "\"\(Bool.random(using: &rng) ? id : id.lowercased())\""
    }

    /// RFC 3339 with an offset of `Z` or `±hh:mm`, with or without a fraction of a second.
    mutating func instant(_ rng: inout any RandomNumberGenerator) {
        let seconds = Int.random(in: 1_700_000_000...1_900_000_000, using: &rng)
        let offset = [0, 0, 3600, -18000, 32400, 19800].randomElement(using: &rng)!
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(seconds + offset)))
        var instant = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
        if Bool.random(using: &rng) { instant += [".5", ".125", ".000", ".123456"].randomElement(using: &rng)! }
        if offset == 0 {
            instant += Bool.random(using: &rng) ? "Z" : "+00:00"
        } else {
            instant += String(format: "%@%02d:%02d", offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) % 3600 / 60)
        }
        text += "\"\(instant)\""
    }

    /// A string of letters, escapes, non-ASCII text and characters that must be escaped (a NUL,
    /// which both ways refuse, has rows of its own in `BadInputTests`).
    mutating func string(_ rng: inout any RandomNumberGenerator) {
        let pieces: [String] = ["a", "Z", "7", " ", "é", "한", "😀", "/", #"\""#, #"\\"#, #"\/"#, #"\n"#, #"\t"#, #"\b"#, #"\f"#, #"\r"#, #"\u00e9"#, #"\uD83D\uDE00"#, #"\u001f"#, "Tim's"]
        text += "\""
        for _ in 0..<Int.random(in: 0...12, using: &rng) { text += pieces.randomElement(using: &rng)! }
        text += "\""
    }

    mutating func freeObject(_ rng: inout any RandomNumberGenerator, depth: Int) {
        text += "{"
        var keys = Set<String>()
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            let key = ["name", "minutes", "days", "on", "é", "e\u{301}", "m\u{301}", "n", "nested", "list", "x", "Z"].randomElement(using: &rng)!
            guard keys.insert(key).inserted else { continue }
            if keys.count > 1 { text += "," }
            space(&rng)
            text += "\"\(key)\":"
            freeValue(&rng, depth: depth + 1)
        }
        text += "}"
    }

    mutating func freeValue(_ rng: inout any RandomNumberGenerator, depth: Int) {
        switch Int.random(in: 0..<(depth < 3 ? 7 : 5), using: &rng) {
        case 0: text += "null"
        case 1: bool(&rng)
        case 2:
            // Free-form numbers are doubles: an integer one cannot keep is refused both ways
            // (`BadInputTests`), so a generated body has none.
            let start = text.endIndex
            double(&rng)
            if !FreeFormNumbers.isKept(text[start...]) {
                text.removeSubrange(start...)
                text += "1.5e3"
            }
        case 3: integer(&rng, in: -(1 << 53)...(1 << 53))
        case 4: string(&rng)
        case 5: freeObject(&rng, depth: depth)
        default: array(&rng, count: 0...3) { w, r in w.freeValue(&r, depth: depth + 1) }
        }
    }
}
