import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The child's own app list (§11): a tracked device creates and updates `AppConfiguration` in its
/// own zone (apps picked by token, which only it can see); its writes and a parent's resolve by
/// §5.4, the parent winning ties whichever arrives first.
@Suite struct ChildAppListTests {
    static func write(_ type: String, _ name: String, tag: String? = nil, fields: String, at instant: String) -> String {
        let tagPart = tag.map { #","recordChangeTag":"\#($0)""# } ?? ""
        return #"{"operationType":"\#(type)","record":{"recordName":"\#(name)","recordType":"AppConfiguration"\#(tagPart),"fields":\#(fields),"clientModifiedAt":"\#(instant)"}}"#
    }

    @Test func aChildPublishesTheAppsItPickedAndItsParentSeesThem() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = "child-\(child.deviceID.lowercased)"
            let created = try await RecordZoneTests.modify(server, child, zone: zone, [Self.write("create", "picked-1", fields: RecordZoneTests.appConfiguration("token-abc"), at: "2026-11-18T11:00:00.000Z")])
            #expect(created.status == .ok, "\(String(buffer: created.body))")
            let record = try #require(try created.decode(ModifyRecordsResponse.self).records.first?.record)
            let updated = try await RecordZoneTests.modify(server, child, zone: zone, [Self.write("update", "picked-1", tag: record.recordChangeTag, fields: #"{"displayName":"Minecraft"}"#, at: "2026-11-18T11:01:00.000Z")])
            #expect(updated.status == .ok, "\(String(buffer: updated.body))")
            let seen = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: parent.credential).decode(ZoneChangesResponse.self)
            let app = try #require(seen.records.first { $0.recordName == "picked-1" })
            #expect(app.fields?["displayName"] == .string("Minecraft") && app.modified?.role == "child" && app.modified?.deviceId == child.deviceID.lowercased)
            // Validated as a parent's write is.
            let bad = try await RecordZoneTests.modify(server, child, zone: zone, [Self.write("create", "picked-2", fields: #"{"logicalID":"x"}"#, at: "2026-11-18T11:02:00.000Z")])
            #expect(bad.status == .badRequest && bad.error?.field == "operations[0].record.fields.blockingEnabled", "\(String(buffer: bad.body))")
        }
    }

    /// Both write the same record at the same instant by their clocks, from the same tag: the
    /// parent's write stands, whether it arrives first (the child's is then a conflict) or second
    /// (it then wins over the child's).
    @Test(arguments: [true, false])
    func theParentWinsATieInEitherOrder(parentFirst: Bool) async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = "child-\(child.deviceID.lowercased)"
            let created = try await RecordZoneTests.modify(server, child, zone: zone, [Self.write("create", "app-1", fields: RecordZoneTests.appConfiguration("app-1"), at: "2026-11-18T10:00:00.000Z")])
            let tag = try #require(try created.decode(ModifyRecordsResponse.self).records.first?.record?.recordChangeTag)
            let instant = "2026-11-18T11:00:00.000Z"
            let parentWrite = Self.write("update", "app-1", tag: tag, fields: #"{"blockingEnabled":true}"#, at: instant)
            let childWrite = Self.write("update", "app-1", tag: tag, fields: #"{"blockingEnabled":false,"displayName":"Mine"}"#, at: instant)
            let writes = parentFirst ? [(parent, parentWrite), (child, childWrite)] : [(child, childWrite), (parent, parentWrite)]
            var results: [RecordResult] = []
            for (device, write) in writes {
                let reply = try await RecordZoneTests.modify(server, device, zone: zone, [write], atomic: false)
                #expect(reply.status == .ok, "\(String(buffer: reply.body))")
                results.append(try #require(try reply.decode(ModifyRecordsResponse.self).records.first))
            }
            if parentFirst {
                #expect(results[0].record != nil)
                #expect(results[1].error?.code == "CONFLICT" && results[1].serverRecord?.fields?["blockingEnabled"] == .bool(true))
            } else {
                #expect(results[0].record != nil)
                #expect(results[1].record?.resolution == "incomingWon")
            }
            let stored = try await server.send(.post, "/v1/zones/\(zone)/records/lookup", credential: child.credential, json: #"{"recordNames":["app-1"]}"#)
                .decode(LookupRecordsResponse.self).records.first?.record
            #expect(stored?.fields?["blockingEnabled"] == .bool(true) && stored?.modified?.role == "parent")
            #expect(stored?.fields?["displayName"] == .string(parentFirst ? "App app-1" : "Mine"), "an update merges into what it wins over")
        }
    }

    /// The child sends the tag it read before a parent's change: older by its clock it is a
    /// conflict handing back the parent's record; newer, last writer wins.
    @Test func aChildsStaleTagResolvesByItsClock() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = "child-\(child.deviceID.lowercased)"
            let created = try await RecordZoneTests.modify(server, parent, zone: zone, [Self.write("create", "app-1", fields: RecordZoneTests.appConfiguration("app-1"), at: "2026-11-18T10:00:00.000Z")])
            let staleTag = try #require(try created.decode(ModifyRecordsResponse.self).records.first?.record?.recordChangeTag)
            let parentChange = try await RecordZoneTests.modify(server, parent, zone: zone, [Self.write("update", "app-1", tag: staleTag, fields: #"{"blockingEnabled":true}"#, at: "2026-11-18T10:30:00.000Z")])
            #expect(parentChange.status == .ok)

            let before = try await server.fingerprint()
            let older = try await RecordZoneTests.modify(server, child, zone: zone, [Self.write("update", "app-1", tag: staleTag, fields: #"{"blockingEnabled":false}"#, at: "2026-11-18T10:20:00.000Z")], atomic: false)
            let conflict = try #require(try older.decode(ModifyRecordsResponse.self).records.first)
            #expect(conflict.error?.code == "CONFLICT" && conflict.serverRecord?.fields?["blockingEnabled"] == .bool(true))
            #expect(try await server.fingerprint() == before)

            let newer = try await RecordZoneTests.modify(server, child, zone: zone, [Self.write("replace", "app-1", tag: staleTag, fields: RecordZoneTests.appConfiguration("app-1"), at: "2026-11-18T10:40:00.000Z")])
            let won = try #require(try newer.decode(ModifyRecordsResponse.self).records.first?.record)
            #expect(won.resolution == "incomingWon" && won.fields?["blockingEnabled"] == .bool(false))
        }
    }
}
