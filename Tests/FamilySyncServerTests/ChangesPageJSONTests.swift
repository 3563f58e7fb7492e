import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServerTestSupport
import Foundation
import NIOCore
import Testing

@testable import FamilySyncServer

/// Pages of changes are written by `ChangesPageJSON`, with each record's fields as PostgreSQL printed
/// them; every other answer goes through `JSONEncoder`. The two must say the same thing: the
/// records of a page equal what `records/lookup` (encoded by `JSONEncoder`) answers for them.
@Suite struct ChangesPageJSONTests {
    /// Values whose printing differs between the two: escapes, non-ASCII, numbers jsonb keeps as
    /// `numeric`, nesting, null.
    static let awkwardFields = #"""
        {"quote":"she said \"hi\"","backslash":"C:\\Users\\kid","lines":"one\ntwo\r\n\ttab","control":"\u0001\u001f",
         "unicode":"é 😀 中文","slash":"</script>","empty":"","zero":0,"negative":-3,"fraction":0.1,"third":0.3333333333333333,
         "big":1e20,"integer":12345678901234,"tiny":5e-7,"yes":true,"no":false,"nothing":null,
         "nested":{"list":[1,"two",[3],{"four":4}],"object":{}},"list":[]}
        """#

    @Test func aPageSaysWhatLookupSaysOfTheSameRecords() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let start = try await server.send(.get, "/v1/zones/family/changes", credential: parent.credential).decode(ZoneChangesResponse.self)
            let operations = (0..<3).map { #"{"operationType":"create","record":{"recordName":"awkward-\#($0)","recordType":"x-note","fields":\#(Self.awkwardFields)}}"# }
                + [#"{"operationType":"create","record":{"recordName":"gone","recordType":"x-note","fields":{"a":1}}}"#]
            let written = try await server.send(
                .post, "/v1/zones/family/records/modify", credential: parent.credential, json: #"{"operations":[\#(operations.joined(separator: ","))]}"#
            )
            #expect(written.status == .ok, "\(String(buffer: written.body))")
            let deleted = try await server.send(
                .post, "/v1/zones/family/records/modify", credential: parent.credential,
                json: #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"gone"}}]}"#
            )
            #expect(deleted.status == .ok)

            let page = try await server.send(.get, "/v1/zones/family/changes?since=\(start.changeToken)", credential: parent.credential)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "application/json; charset=utf-8")
            let changes = try page.decode(ZoneChangesResponse.self)
            let names = ["awkward-0", "awkward-1", "awkward-2"]
            #expect(changes.records.map(\.recordName) == names + ["gone"])
            #expect(changes.records.last == RecordBody(deletedName: "gone", recordType: "x-note"))
            #expect(!changes.moreComing)

            let lookup = try await server.send(
                .post, "/v1/zones/family/records/lookup", credential: parent.credential, body: LookupRecordsRequest(recordNames: names)
            ).decode(LookupRecordsResponse.self)
            #expect(changes.records.dropLast() == lookup.records.compactMap(\.record)[...])
            // As written, but for the null: writing null removes a field (§5.3).
            var expected = try WireCoding.makeDecoder().decode([String: JSONValue].self, from: Data(Self.awkwardFields.utf8))
            expected["nothing"] = nil
            #expect(changes.records.first?.fields == expected)

            // The multi-zone answer writes the same page, and a zone that failed beside it.
            let both = try await server.send(
                .post, "/v1/changes/zones", credential: parent.credential,
                body: MultiZoneChangesRequest(zones: [.init(zoneName: "family", since: start.changeToken), .init(zoneName: "no-such-zone")])
            )
            #expect(both.status == .ok, "\(String(buffer: both.body))")
            let zones = try both.decode(MultiZoneChangesResponse.self).zones
            #expect(zones.count == 2)
            #expect(zones.first?.zoneName == "family")
            #expect(zones.first?.page?.records == changes.records)
            #expect(zones.first?.page?.moreComing == false)
            #expect(zones.last?.zoneName == "no-such-zone")
            #expect(zones.last?.error?.code == "ZONE_NOT_FOUND")
        }
    }

    /// The compact format (PROTOCOL §5.5) reads back into the very records the full one gives, on
    /// both fetches, while saying each device once and leaving out what the rest tells.
    @Test func aCompactPageSaysWhatTheFullOneSays() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, otherParent) = try await server.pair(by: parent, role: .parent)
            let zone = "child-\(child.deviceID.lowercased)"
            let start = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: child.credential).decode(ZoneChangesResponse.self)
            // Created and never changed; created with the writer's own instant; created, then
            // changed by the other parent; created, then deleted.
            let written = try await server.send(
                .post, "/v1/zones/\(zone)/records/modify", credential: parent.credential,
                json: #"""
                    {"operations":[
                      {"operationType":"create","record":{"recordName":"plain","recordType":"x-note","fields":\#(Self.awkwardFields)}},
                      {"operationType":"create","record":{"recordName":"clocked","recordType":"x-note","fields":{"a":1},"clientModifiedAt":"2026-01-02T03:04:05.678Z"}},
                      {"operationType":"create","record":{"recordName":"changed","recordType":"x-note","fields":{"a":1}}},
                      {"operationType":"create","record":{"recordName":"gone","recordType":"x-note","fields":{"a":1}}}]}
                    """#
            )
            #expect(written.status == .ok, "\(String(buffer: written.body))")
            let changed = try await server.send(
                .post, "/v1/zones/\(zone)/records/modify", credential: otherParent.credential,
                json: #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"changed","fields":{"a":2}}}]}"#
            )
            #expect(changed.status == .ok, "\(String(buffer: changed.body))")
            let deleted = try await server.send(
                .post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"gone"}}]}"#
            )
            #expect(deleted.status == .ok)

            let full = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(start.changeToken)&format=full", credential: child.credential)
            let compact = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(start.changeToken)&format=compact", credential: child.credential)
            #expect(full.status == .ok && compact.status == .ok)
            let records = try full.decode(ZoneChangesResponse.self).records
            #expect(records.map(\.recordName) == ["plain", "clocked", "changed", "gone"])
            #expect(try compact.decode(ZoneChangesResponse.self).records == records)
            // Without `format` a page is full, as before the compact one existed.
            let unasked = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(start.changeToken)", credential: child.credential)
            #expect(String(buffer: unasked.body) == String(buffer: full.body))

            // What the compact page says: the two devices once, in the order they first appear;
            // `created` only for the record changed since; `clientModifiedAt` only for the
            // record written with its own; the deletion as in the full format.
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(compact.body.readableBytesView)) as? [String: Any])
            #expect(parsed["devices"] as? [String] == [parent.deviceID.lowercased, otherParent.deviceID.lowercased])
            let pageRecords = try #require(parsed["records"] as? [[String: Any]])
            #expect(pageRecords.map { Set($0.keys) } == [
                ["fields", "modified", "recordChangeTag", "recordName", "recordType"],
                ["clientModifiedAt", "fields", "modified", "recordChangeTag", "recordName", "recordType"],
                ["created", "fields", "modified", "recordChangeTag", "recordName", "recordType"],
                ["deleted", "recordName", "recordType"],
            ])
            #expect(pageRecords[1]["clientModifiedAt"] as? Int == 1_767_323_045_678)
            #expect((pageRecords[2]["created"] as? [Any])?.last as? Int == 0)
            #expect((pageRecords[2]["modified"] as? [Any])?.dropFirst().map { "\($0)" } == ["1", "parent"])
            #expect(compact.body.readableBytes < full.body.readableBytes)

            // The multi-zone fetch writes the same compact page, and a zone that failed beside it.
            let both = try await server.send(
                .post, "/v1/changes/zones", credential: child.credential,
                body: MultiZoneChangesRequest(zones: [.init(zoneName: zone, since: start.changeToken), .init(zoneName: "no-such-zone")], format: .compact)
            )
            #expect(both.status == .ok, "\(String(buffer: both.body))")
            #expect(String(buffer: both.body).contains(#""devices":["#))
            let zones = try both.decode(MultiZoneChangesResponse.self).zones
            #expect(zones.first?.page?.records == records)
            #expect(zones.last?.error?.code == "ZONE_NOT_FOUND")
        }
    }

    /// A compact page whose record names a device the page does not list is corrupt, not a record
    /// of nobody's.
    @Test func aCompactRecordNamingNoListedDeviceIsRefused() throws {
        let page = #"{"changeToken":"t","devices":["d0"],"moreComing":false,"records":[{"fields":{},"modified":[0,1,"parent"],"recordChangeTag":"x","recordName":"a","recordType":"x-note"}]}"#
        #expect(throws: DecodingError.self) { try WireCoding.makeDecoder().decode(ZoneChangesResponse.self, from: Data(page.utf8)) }
        let good = page.replacingOccurrences(of: "[0,1,", with: "[0,0,")
        let record = try #require(try WireCoding.makeDecoder().decode(ZoneChangesResponse.self, from: Data(good.utf8)).records.first)
        #expect(record.created?.deviceId == "d0" && record.modified?.role == "parent" && record.clientModifiedAt == Date(timeIntervalSince1970: 0))
    }

    /// The envelope's own strings (names, types, tags and tokens are restricted today, so the
    /// server never hands it one that needs escaping) are escaped all the same.
    @Test func stringsAreEscaped() throws {
        let awkward = "a \"quoted\" \\ back\nline\t\u{01}\u{1f} é 😀 /"
        let device = UUID()
        let record = FeedRecord<ByteBuffer>(
            recordName: awkward, recordType: awkward, changeTag: awkward, deleted: false, createdAt: Date(timeIntervalSince1970: 1_800_000_000.123),
            createdBy: device, modifiedAt: Date(timeIntervalSince1970: 1_800_000_001), modifiedBy: device, modifiedRole: .parent,
            clientModifiedAt: Date(timeIntervalSince1970: 1_799_999_999.5), fieldsJSON: ByteBuffer(string: #"{"k": "v"}"#)
        )
        let zone = Zone(name: "family", childDeviceID: nil, memberID: nil, incarnation: UUID(), changedSequence: 1, deleted: false)
        var body = ChangesPageJSON(capacity: 16)
        body.writePage(ZoneChangePage(records: [record], zone: zone, sequence: 1, moreComing: true), changeToken: awkward)
        let page = try WireCoding.makeDecoder().decode(ZoneChangesResponse.self, from: Data(body.buffer.readableBytesView))
        #expect(page.changeToken == awkward)
        #expect(page.moreComing)
        #expect(page.records == [RecordBody(try record.record())])

        // The compact form of the same record, created and changed by two devices.
        var other = record
        other.modifiedBy = UUID()
        var compact = ChangesPageJSON(capacity: 16)
        compact.writePage(ZoneChangePage(records: [other], zone: zone, sequence: 1, moreComing: false), changeToken: awkward, format: .compact)
        let compactPage = try WireCoding.makeDecoder().decode(ZoneChangesResponse.self, from: Data(compact.buffer.readableBytesView))
        #expect(compactPage.changeToken == awkward)
        #expect(compactPage.records == [RecordBody(try other.record())])
    }
}
