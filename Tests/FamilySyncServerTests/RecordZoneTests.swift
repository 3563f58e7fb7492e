import FamilySyncCore
import FamilySyncProtocol
import FamilySyncPostgres
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import PostgresNIO
import Testing

/// PROTOCOL §4–§5: a parent writes configuration into a child's zone, the child follows it with
/// change tokens, and stale writes are resolved as §5.4 says.
@Suite struct RecordZoneTests {
    static func appConfiguration(_ name: String, category: String = "learning", enabled: Bool = true) -> String {
        #"{"logicalID":"\#(name)","displayName":"App \#(name)","category":"\#(category)","isEnabled":\#(enabled),"blockingEnabled":false,"pointsPerMinute":5}"#
    }

    static func modify(_ server: TestServer, _ device: TestDevice, zone: String, _ operations: [String], atomic: Bool = true) async throws -> TestServer.Reply {
        try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: device.credential, json: #"{"operations":[\#(operations.joined(separator: ","))],"atomic":\#(atomic)}"#)
    }

    @Test func aParentConfiguresAChildWhoFollowsWithTokens() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = "child-\(child.deviceID.lowercased)"

            // The child starts from nothing: its zone is empty.
            let initial = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: child.credential).decode(ZoneChangesResponse.self)
            #expect(initial.records.isEmpty && !initial.moreComing)

            let saved = try await Self.modify(server, parent, zone: zone, [
                #"{"operationType":"create","record":{"recordName":"app-1","recordType":"AppConfiguration","fields":\#(Self.appConfiguration("app-1"))}}"#,
                #"{"operationType":"create","record":{"recordName":"app-2","recordType":"AppConfiguration","fields":\#(Self.appConfiguration("app-2", category: "reward"))}}"#,
            ])
            #expect(saved.status == .ok, "\(String(buffer: saved.body))")
            let results = try saved.decode(ModifyRecordsResponse.self).records
            #expect(results.map(\.record?.outcome) == ["created", "created"])

            // The child's fetch with its token returns exactly the two records, then nothing new.
            let first = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(initial.changeToken)", credential: child.credential).decode(ZoneChangesResponse.self)
            #expect(first.records.map(\.recordName) == ["app-1", "app-2"])
            #expect(first.records.first?.fields?["category"] == .string("learning"))
            let again = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(first.changeToken)", credential: child.credential).decode(ZoneChangesResponse.self)
            #expect(again.records.isEmpty)
            #expect(again.changeToken == first.changeToken, "nothing new hands back the token asked with, as it came")

            // An update merges; a delete appears once as a tombstone.
            let tag = try #require(results[0].record?.recordChangeTag)
            let updated = try await Self.modify(server, parent, zone: zone, [
                #"{"operationType":"update","record":{"recordName":"app-1","recordChangeTag":"\#(tag)","fields":{"isEnabled":false}}}"#,
                #"{"operationType":"forceDelete","record":{"recordName":"app-2"}}"#,
            ])
            #expect(updated.status == .ok)
            let next = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(first.changeToken)", credential: child.credential).decode(ZoneChangesResponse.self)
            #expect(next.records.map(\.recordName) == ["app-1", "app-2"])
            #expect(next.records[0].fields?["isEnabled"] == .bool(false) && next.records[0].fields?["displayName"] == .string("App app-1"))
            #expect(next.records[1].deleted == true && next.records[1].fields == nil)

            // Database changes: the child sees its zone changed.
            let database = try await server.send(.get, "/v1/changes", credential: child.credential).decode(DatabaseChangesResponse.self)
            let member = try #require(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).memberId)
            #expect(Set(database.zones.map(\.zoneName)) == [zone, "family", Member.zoneName(of: member)])
        }
    }

    @Test func aStaleWriteIsResolvedLastWriterWinsParentFirst() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, coParent) = try await server.pair(by: parent, role: .parent)
            let (_, child) = try await server.pair(by: parent)
            let zone = "child-\(child.deviceID.lowercased)"
            let created = try await Self.modify(server, parent, zone: zone, [#"{"operationType":"create","record":{"recordName":"app-1","recordType":"AppConfiguration","fields":\#(Self.appConfiguration("app-1")),"clientModifiedAt":"2026-11-01T10:00:00.000Z"}}"#])
            let tag = try #require(try created.decode(ModifyRecordsResponse.self).records.first?.record?.recordChangeTag)

            // The co-parent writes at 10:05 with the current tag; the parent, later by the server's
            // clock but earlier by its own (10:02), sends the old tag: the stored record wins.
            let newer = try await Self.modify(server, coParent, zone: zone, [#"{"operationType":"update","record":{"recordName":"app-1","recordChangeTag":"\#(tag)","fields":{"displayName":"Newer"},"clientModifiedAt":"2026-11-01T10:05:00.000Z"}}"#])
            #expect(newer.status == .ok)
            let stale = try await Self.modify(server, parent, zone: zone, [#"{"operationType":"update","record":{"recordName":"app-1","recordChangeTag":"\#(tag)","fields":{"displayName":"Older"},"clientModifiedAt":"2026-11-01T10:02:00.000Z"}}"#], atomic: false)
            let conflict = try #require(try stale.decode(ModifyRecordsResponse.self).records.first)
            #expect(conflict.error?.code == "CONFLICT")
            #expect(conflict.serverRecord?.fields?["displayName"] == .string("Newer"))

            // A stale write that is newer by its own clock wins, and says so.
            let winning = try await Self.modify(server, parent, zone: zone, [#"{"operationType":"update","record":{"recordName":"app-1","recordChangeTag":"\#(tag)","fields":{"displayName":"Newest"},"clientModifiedAt":"2026-11-01T10:07:00.000Z"}}"#])
            let won = try #require(try winning.decode(ModifyRecordsResponse.self).records.first?.record)
            #expect(won.resolution == "incomingWon" && won.fields?["displayName"] == .string("Newest"))

            // Atomic: the conflict fails the request with its status, and nothing is written.
            let before = try await server.fingerprint()
            let atomic = try await Self.modify(server, parent, zone: zone, [
                #"{"operationType":"create","record":{"recordName":"app-9","recordType":"AppConfiguration","fields":\#(Self.appConfiguration("app-9"))}}"#,
                #"{"operationType":"update","record":{"recordName":"app-1","recordChangeTag":"\#(tag)","fields":{"displayName":"Old"},"clientModifiedAt":"2026-11-01T09:00:00.000Z"}}"#,
            ])
            #expect(atomic.status == .conflict && atomic.errorCode == "CONFLICT")
            #expect(try await server.fingerprint() == before)
        }
    }
}

@Suite struct TombstoneTests {
    /// A deletion stays in the feed for the horizon; then the tombstone is purged and a token from
    /// before it answers 410, after which a fetch without a token gives the live records.
    @Test func tokensOlderThanThePurgedTombstonesExpire() async throws {
        try await withTestServer(isolation: .database) { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = "child-\(child.deviceID.lowercased)"
            let old = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: parent.credential).decode(ZoneChangesResponse.self).changeToken
            _ = try await RecordZoneTests.modify(server, parent, zone: zone, [
                #"{"operationType":"create","record":{"recordName":"keep","recordType":"AppConfiguration","fields":\#(RecordZoneTests.appConfiguration("keep"))}}"#,
                #"{"operationType":"create","record":{"recordName":"drop","recordType":"AppConfiguration","fields":\#(RecordZoneTests.appConfiguration("drop"))}}"#,
            ])
            _ = try await RecordZoneTests.modify(server, parent, zone: zone, [#"{"operationType":"forceDelete","record":{"recordName":"drop"}}"#])
            let purge = PostgresTombstonePurge(changeLog: ChangeLog(database: server.database, logger: testLogger), logger: testLogger)
            // Within the horizon nothing is purged and the old token still works.
            #expect(try await purge.purge(olderThan: server.clock.now().addingTimeInterval(-30 * 86_400)) == 0)
            #expect(try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(old)", credential: parent.credential).status == .ok)

            server.clock.advance(by: 31 * 86_400)
            #expect(try await purge.purge(olderThan: server.clock.now().addingTimeInterval(-30 * 86_400)) == 1)
            let expired = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(old)", credential: parent.credential)
            #expect(expired.status == .gone && expired.errorCode == "CHANGE_TOKEN_EXPIRED")
            let database = try await server.send(.get, "/v1/changes?since=\(try await server.send(.get, "/v1/changes", credential: parent.credential).decode(DatabaseChangesResponse.self).changeToken)", credential: parent.credential)
            #expect(database.status == .ok)
            let fresh = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: parent.credential).decode(ZoneChangesResponse.self)
            #expect(fresh.records.map(\.recordName) == ["keep"])
        }
    }

    @Test func aNewChildZoneShowsInTheParentsDatabaseChanges() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let since = try await server.send(.get, "/v1/changes", credential: parent.credential).decode(DatabaseChangesResponse.self).changeToken
            let (_, child) = try await server.pair(by: parent)
            let changes = try await server.send(.get, "/v1/changes?since=\(since)", credential: parent.credential).decode(DatabaseChangesResponse.self)
            // The child's zone, and the zone of the member its confirmation made (§8).
            let member = try #require(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).memberId)
            #expect(Set(changes.zones.map(\.zoneName)) == ["child-\(child.deviceID.lowercased)", Member.zoneName(of: member)])
        }
    }

    @Test func aDeletedZoneShowsInDatabaseChangesAndItsTokensStop() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let created = try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"settings"}"#)
            #expect(created.status == .created)
            let zoneToken = try created.decode(ZoneBody.self).changeToken
            let since = try await server.send(.get, "/v1/changes", credential: parent.credential).decode(DatabaseChangesResponse.self).changeToken
            #expect(try await server.send(.delete, "/v1/zones/settings", credential: parent.credential).status == .noContent)
            let changes = try await server.send(.get, "/v1/changes?since=\(since)", credential: parent.credential).decode(DatabaseChangesResponse.self)
            #expect(changes.deletedZones == ["settings"])
            // Made again, it is a new zone: the old token does not carry over.
            #expect(try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"settings"}"#).status == .created)
            let reused = try await server.send(.get, "/v1/zones/settings/changes?since=\(zoneToken)", credential: parent.credential)
            #expect(reused.status == .badRequest && reused.errorCode == "BAD_CHANGE_TOKEN")
        }
    }
}

@Suite struct RecordQueryTests {
    /// Keyset paging: pages in the query's order (descending, nulls last, names breaking ties)
    /// neither skip nor repeat a record when records are written between pages, ahead of the
    /// cursor and behind it. With an offset, the write behind the cursor shifted the next page.
    @Test func pagesHoldTheirPlaceWhileRecordsAreWritten() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = "child-\(child.deviceID.lowercased)"
            func app(_ name: String, points: Int?) -> String {
                let points = points.map { #","pointsPerMinute":\#($0)"# } ?? ""
                return #"{"operationType":"create","record":{"recordName":"\#(name)","recordType":"AppConfiguration","fields":{"logicalID":"\#(name)","displayName":"\#(name)","category":"learning","isEnabled":true,"blockingEnabled":false\#(points)}}}"#
            }
            // Points 50, 40, 40, 30 and two without: in order e, d, d2, c, then n1, n2 (nulls last).
            let start = [app("e", points: 50), app("d", points: 40), app("d2", points: 40), app("c", points: 30), app("n1", points: nil), app("n2", points: nil)]
            #expect(try await RecordZoneTests.modify(server, parent, zone: zone, start).status == .ok)
            func page(_ marker: String?) async throws -> QueryRecordsResponse {
                let continuation = marker.map { #","continuationMarker":"\#($0)""# } ?? ""
                return try await server.send(
                    .post, "/v1/zones/\(zone)/records/query", credential: child.credential,
                    json: #"{"recordType":"AppConfiguration","sortBy":[{"fieldName":"pointsPerMinute","ascending":false}],"resultsLimit":2\#(continuation)}"#
                ).decode(QueryRecordsResponse.self)
            }
            let first = try await page(nil)
            #expect(first.records.map(\.recordName) == ["e", "d"])
            // Behind the cursor (60 sorts first) and ahead of it (35, and another without points).
            #expect(try await RecordZoneTests.modify(server, parent, zone: zone, [app("f", points: 60), app("c2", points: 35), app("n0", points: nil)]).status == .ok)
            var seen = first.records.map(\.recordName)
            var marker = first.continuationMarker
            while let current = marker {
                let next = try await page(current)
                seen += next.records.map(\.recordName)
                marker = next.continuationMarker
            }
            #expect(seen == ["e", "d", "d2", "c2", "c", "n0", "n1", "n2"])
        }
    }

    @Test func filtersSortsAndPages() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = "child-\(child.deviceID.lowercased)"
            let operations = (1...5).map { index in
                #"{"operationType":"create","record":{"recordName":"app-\#(index)","recordType":"AppConfiguration","fields":{"logicalID":"app-\#(index)","displayName":"App \#(index)","category":"\#(index % 2 == 0 ? "reward" : "learning")","isEnabled":true,"blockingEnabled":false,"pointsPerMinute":\#(index * 10)}}}"#
            }
            #expect(try await RecordZoneTests.modify(server, parent, zone: zone, operations).status == .ok)
            func query(_ json: String, as device: TestDevice) async throws -> TestServer.Reply {
                try await server.send(.post, "/v1/zones/\(zone)/records/query", credential: device.credential, json: json)
            }
            // The child reads its own zone: learning apps, most points first, two a page.
            let first = try await query(#"{"recordType":"AppConfiguration","filterBy":[{"fieldName":"category","comparator":"EQUALS","value":"learning"}],"sortBy":[{"fieldName":"pointsPerMinute","ascending":false}],"resultsLimit":2}"#, as: child).decode(QueryRecordsResponse.self)
            #expect(first.records.map(\.recordName) == ["app-5", "app-3"])
            let marker = try #require(first.continuationMarker)
            let second = try await query(#"{"recordType":"AppConfiguration","filterBy":[{"fieldName":"category","comparator":"EQUALS","value":"learning"}],"sortBy":[{"fieldName":"pointsPerMinute","ascending":false}],"resultsLimit":2,"continuationMarker":"\#(marker)"}"#, as: child).decode(QueryRecordsResponse.self)
            #expect(second.records.map(\.recordName) == ["app-1"])
            #expect(second.continuationMarker == nil)

            let inAndGreater = try await query(#"{"recordType":"AppConfiguration","filterBy":[{"fieldName":"logicalID","comparator":"IN","value":["app-2","app-4","app-5"]},{"fieldName":"pointsPerMinute","comparator":"GREATER_THAN","value":20}]}"#, as: parent).decode(QueryRecordsResponse.self)
            #expect(inAndGreater.records.map(\.recordName) == ["app-4", "app-5"])
            let notEquals = try await query(#"{"recordType":"AppConfiguration","filterBy":[{"fieldName":"category","comparator":"NOT_EQUALS","value":"learning"},{"fieldName":"pointsPerMinute","comparator":"LESS_THAN","value":30}]}"#, as: parent).decode(QueryRecordsResponse.self)
            #expect(notEquals.records.map(\.recordName) == ["app-2"])
            let recent = try await query(#"{"recordType":"AppConfiguration","filterBy":[{"fieldName":"modified.timestamp","comparator":"GREATER_THAN","value":"2000-01-01T00:00:00Z"}]}"#, as: parent).decode(QueryRecordsResponse.self)
            #expect(recent.records.count == 5)

            let before = try await server.fingerprint()
            for (json, field) in [
                (#"{"recordType":"AppConfiguration","filterBy":[{"fieldName":"x'; DROP TABLE records; --","comparator":"EQUALS","value":1}]}"#, "filterBy[0].fieldName"),
                (#"{"recordType":"AppConfiguration","filterBy":[{"fieldName":"category","comparator":"LIKE","value":"a"}]}"#, "filterBy[0].comparator"),
                (#"{"recordType":"AppConfiguration","filterBy":[{"fieldName":"category","comparator":"IN","value":"learning"}]}"#, "filterBy[0].value"),
                (#"{"recordType":"AppConfiguration","resultsLimit":0}"#, "resultsLimit"),
                (#"{"recordType":"AppConfiguration","continuationMarker":"bogus!"}"#, "continuationMarker"),
                // Another query's marker (two sort keys for none), and an offset from before keyset paging.
                (#"{"recordType":"AppConfiguration","continuationMarker":"eyJrZXlzIjpbMSwyXSwicmVjb3JkTmFtZSI6ImFwcC0xIn0="}"#, "continuationMarker"),
                (#"{"recordType":"AppConfiguration","continuationMarker":"bzoy"}"#, "continuationMarker"),
            ] {
                let reply = try await query(json, as: parent)
                #expect(reply.status == .badRequest && reply.error?.field == field, "\(json): \(String(buffer: reply.body))")
            }
            #expect(try await server.fingerprint() == before)
        }
    }
}
