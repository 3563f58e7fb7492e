import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import Foundation
import NIOCore
import PropertyBased
import Testing

/// The hot paths' answers written directly are the bytes `JSONEncoder.wire` writes for them: the
/// same members, nulls, key order, escapes and numbers.
@Suite struct WireJSONWriterTests {
    static let error = #"{"action":"record_usage","errorDescription":null,"eventName":"DeviceActivityMonitor\/\"x\"","id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","memoryUsageMB":12.0,"success":false,"timestamp":"2026-11-26T10:00:00.5+09:00"}"#
    static let gap = #"{"detectionMethod":"heartbeat_stale","durationMinutes":12,"end":"2026-11-26T10:12:00Z","start":"2026-11-26T10:00:00Z"}"#
    static let alert = #"{"alertID":"6F9619FF-8B86-D011-B42D-00C04FC964FF","kind":"budget_exceeded","memberId":"6F9619FF-8B86-D011-B42D-00C04FC964F0","category":"gaming","budgetID":"b","date":"2026-11-26","budgetMinutes":60,"usedMinutes":61,"percent":101,"message":"Ada used 61 min of 60 — \u0007 é 😀","createdAt":"2026-11-26T10:00:00Z"}"#
    static let summary = #"{"summaryID":"s","date":"2026-11-26","deviceID":"d","totalLearningSeconds":1,"totalRewardSeconds":2,"totalPointsEarned":3,"totalSeconds":4,"appsUsed":["a","b\n"],"byApp":[{"logicalID":"a","displayName":"Khan \"Academy\"","category":"learning","seconds":3,"points":1,"pickups":2}],"byCategory":[{"category":"learning","seconds":3,"points":1}],"totalPickups":2,"lastUpdated":"2026-11-26T10:00:00.123Z"}"#
    static let record = #"{"recordName":"r\\1","recordType":"AppConfiguration","fields":{"z":1,"a":[1.5,null,true,{"y":"\b\f","x":1e300}],"m":-3,"big":12345678901234567890,"small":1e-7},"recordChangeTag":"t","deleted":false,"created":{"timestamp":"2026-11-26T10:00:00Z","deviceId":"c"},"modified":{"timestamp":"2026-11-26T10:00:01Z","deviceId":"c","role":"parent"},"clientModifiedAt":"2026-11-26T09:59:00Z","outcome":"updated","resolution":"incomingWon"}"#

    @Test(arguments: [
        #"{"deviceId":"6F9619FF-8B86-D011-B42D-00C04FC964FF","date":"2026-11-26","status":"healthy","missedNotifications":0,"sequenceResets":1,"errorsToday":2,"lastErrors":[\#(error),\#(error)],"gapsToday":[\#(gap)],"gapMinutesToday":12,"lastHeartbeatAt":"2026-11-26T10:00:00Z","heartbeatGapSeconds":30,"memoryUsageMB":12.5}"#,
        #"{"deviceId":"6F9619FF-8B86-D011-B42D-00C04FC964FF","date":"2026-11-26","status":"unknown","missedNotifications":0,"sequenceResets":0,"errorsToday":0,"lastErrors":[],"gapsToday":[],"gapMinutesToday":0}"#,
    ])
    func aHeartbeatsAnswer(_ json: String) throws {
        try expectSameBytes(DeviceHealthBody.self, json)
    }

    @Test func usageAnswers() throws {
        try expectSameBytes(UsageUploadResponse.self, #"{"accepted":2,"duplicates":1,"summaries":[\#(Self.summary),\#(Self.summary)],"changeToken":"tok","alerts":[\#(Self.alert)]}"#)
        try expectSameBytes(UsageUploadResponse.self, #"{"accepted":0,"duplicates":0,"summaries":[],"changeToken":"tok","alerts":[]}"#)
        try expectSameBytes(UsageTotalsResponse.self, #"{"summary":\#(Self.summary),"alerts":[\#(Self.alert)],"changeToken":"tok"}"#)
    }

    @Test(arguments: [
        #"{"changed":false,"changeToken":"tok"}"#,
        #"{"changed":true,"zones":["family","child-\"1\""],"devices":["6f9619ff-8b86-d011-b42d-00c04fc964ff"],"changeToken":"tok"}"#,
        #"{"changed":true,"zones":[],"devices":[],"changeToken":"tok"}"#,
    ])
    func aPollsAnswer(_ json: String) throws {
        try expectSameBytes(PollResponse.self, json)
    }

    @Test func aModifysAnswer() throws {
        let failure = #"{"recordName":"x","error":{"code":"CONFLICT","reason":"r","field":"operations[1]"},"serverRecord":\#(Self.record)}"#
        let bare = #"{"recordName":"y","error":{"code":"ZONE_BUSY","reason":"busy","retryAfter":2}}"#
        let deletion = #"{"recordName":"d","recordType":"T","deleted":true}"#
        try expectSameBytes(ModifyRecordsResponse.self, #"{"records":[\#(Self.record),\#(failure),\#(bare),\#(deletion)],"changeToken":"tok"}"#)
    }

    /// Strings and numbers of every kind, in a record's fields and an error's members.
    @Test func anyStringAndNumber() async throws {
        // Control characters and ASCII most, and the rest of Unicode around the surrogates (which
        // the generator's range cannot span).
        let scalar = Gen.oneOf(
            Gen.unicodeScalar(in: "\u{0}"..."\u{7F}"), Gen.unicodeScalar(in: "\u{0}"..."\u{20}"),
            Gen.unicodeScalar(in: "\u{80}"..."\u{D7FF}"), Gen.unicodeScalar(in: "\u{E000}"..."\u{10FFFF}")
        )
        let text = scalar.map { Character($0) }.string(of: 0...8)
        let number = Gen.oneOf(
            Gen.double(in: -1e20...1e20), Gen.double(in: -1...1), Gen.int(in: Int.min...Int.max).map(Double.init),
            Gen.element(of: [0, -0.0, 1e-7, 1e16, 9e15, 8.999e15, 0.1, 1e300, -1e-300, 5e-324] as [Double]).map { $0! }
        )
        await propertyCheck(count: 300, input: text, number) { text, number in
            let now = Date(timeIntervalSince1970: 1_790_000_000.5)
            let record = RecordBody(
                Record(
                    recordName: text, recordType: "T",
                    fields: ["t:" + text: .string(text), "n": .number(number), "l": .array([.number(number), .string(text)]), text + "\u{301}": .null],
                    changeTag: text, deleted: false, createdAt: now, createdBy: UUID(), modifiedAt: now, modifiedBy: UUID(), modifiedRole: .parent,
                    clientModifiedAt: now
                )
            )
            let body = ModifyRecordsResponse(records: [RecordResult(record: record)], changeToken: text)
            Self.expectSame(Self.written(body), try? JSONEncoder.wire.encode(body))
            var health = try! WireCoding.makeDecoder().decode(DeviceHealthBody.self, from: Data(#"{"deviceId":"6F9619FF-8B86-D011-B42D-00C04FC964FF","date":"d","status":"s","missedNotifications":0,"sequenceResets":0,"errorsToday":0,"lastErrors":[],"gapsToday":[],"gapMinutesToday":0}"#.utf8))
            health.memoryUsageMB = number
            health.status = text
            Self.expectSame(Self.written(health), try? JSONEncoder.wire.encode(health))
        }
    }

    /// Keys in the order of their bytes, as the encoder sorts them, not compared normalised.
    @Test func fieldsKeysInTheEncodersOrder() throws {
        try expectSameBytes(RecordBody.self, #"{"recordName":"r","recordType":"T","fields":{"n":1,"m\u0301":2,"é":3,"e\u0301":4,"Z":5,"😀":6,"ﬀ":7}}"#)
    }

    private func expectSameBytes<Value: Codable & WireJSONWritable>(_ type: Value.Type, _ json: String) throws {
        let value = try WireCoding.makeDecoder().decode(Value.self, from: Data(json.utf8))
        let encoded = try JSONEncoder.wire.encode(value)
        let written = Self.written(value)
        #expect(written == encoded, "\n\(String(decoding: written, as: UTF8.self))\n\(String(decoding: encoded, as: UTF8.self))")
    }

    static func expectSame(_ written: Data, _ encoded: Data?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(written == encoded, "\n\(String(decoding: written, as: UTF8.self))\n\(String(decoding: encoded ?? Data(), as: UTF8.self))", sourceLocation: sourceLocation)
    }

    static func written(_ value: some WireJSONWritable) -> Data {
        var writer = WireJSONWriter()
        value.write(to: &writer)
        return Data(writer.buffer.readableBytesView)
    }
}
