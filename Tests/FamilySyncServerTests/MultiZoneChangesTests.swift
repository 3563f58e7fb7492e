import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// PROTOCOL §5.5's multi-zone fetch: several zones' pages in one round trip, each as the
/// single-zone fetch would answer it, a zone's failure its own, and nothing seen that the caller
/// may not see.
@Suite struct MultiZoneChangesTests {
    static func fetch(_ server: TestServer, _ device: TestDevice, _ zones: [(String, String?)], limit: Int? = nil) async throws -> [ZoneChangesResult] {
        let body = MultiZoneChangesRequest(zones: zones.map { .init(zoneName: $0.0, since: $0.1) }, limit: limit)
        let reply = try await server.send(.post, "/v1/changes/zones", credential: device.credential, body: body)
        #expect(reply.status == .ok, "\(String(buffer: reply.body).prefix(300))")
        let answer = try reply.decode(MultiZoneChangesResponse.self)
        #expect(answer.zones.map(\.zoneName) == zones.map(\.0), "one entry per zone, in the order asked")
        return answer.zones
    }

    static func single(_ server: TestServer, _ device: TestDevice, _ zone: String, since: String? = nil, limit: Int? = nil) async throws -> TestServer.Reply {
        let query = [since.map { "since=\($0)" }, limit.map { "limit=\($0)" }].compactMap { $0 }.joined(separator: "&")
        return try await server.send(.get, "/v1/zones/\(zone)/changes" + (query.isEmpty ? "" : "?" + query), credential: device.credential)
    }

    /// `count` custom records named `prefix-0`… written into `zone`, 400 an operation list.
    static func write(_ server: TestServer, _ parent: TestDevice, _ count: Int, into zone: String, prefix: String) async throws {
        for start in stride(from: 0, to: count, by: Limits.maximumOperations) {
            let operations = (start..<min(count, start + Limits.maximumOperations)).map {
                #"{"operationType":"create","record":{"recordName":"\#(prefix)-\#($0)","recordType":"x-note","fields":{"n":\#($0)}}}"#
            }
            let reply = try await RecordZoneTests.modify(server, parent, zone: zone, operations)
            #expect(reply.status == .ok, "\(String(buffer: reply.body).prefix(300))")
        }
    }

    static func page(_ result: ZoneChangesResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> ZoneChangesResponse {
        try #require(result.page, "\(result.zoneName): \(String(describing: result.error))", sourceLocation: sourceLocation)
    }

    @Test func severalZonesInOneCallAreTheSingleZoneFetches() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let childZone = Device.zoneName(forChild: child.deviceID)
            _ = try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"notes"}"#)
            try await Self.write(server, parent, 3, into: "notes", prefix: "n")
            try await Self.write(server, parent, 2, into: "family", prefix: "f")
            try await server.configure(childZone, by: parent, name: "app-1")
            let zones = ["notes", "family", childZone]

            // From the start: each entry is the single-zone answer, token included (same snapshot
            // position, as nothing was written in between).
            let first = try await Self.fetch(server, parent, zones.map { ($0, nil) })
            for (zone, result) in zip(zones, first) {
                let alone = try await Self.single(server, parent, zone).decode(ZoneChangesResponse.self)
                #expect(try Self.page(result) == alone)
            }
            #expect(try first.map { try Self.page($0).records.count } == [3, 2, 1])

            // After a token: only what came since, deletions as tombstones, and an unchanged zone empty.
            let tokens = try first.map { try Self.page($0).changeToken }
            let deleted = try await RecordZoneTests.modify(server, parent, zone: "notes", [#"{"operationType":"forceDelete","record":{"recordName":"n-1"}}"#])
            #expect(deleted.status == .ok)
            try await server.configure(childZone, by: parent, name: "app-2")
            let next = try await Self.fetch(server, parent, Array(zip(zones, tokens.map(Optional.some))))
            for (index, zone) in zones.enumerated() {
                let alone = try await Self.single(server, parent, zone, since: tokens[index]).decode(ZoneChangesResponse.self)
                #expect(try Self.page(next[index]) == alone)
            }
            #expect(try Self.page(next[0]).records.map(\.recordName) == ["n-1"] && (try Self.page(next[0]).records[0].deleted) == true)
            #expect(try Self.page(next[1]).records.isEmpty)
            #expect(try Self.page(next[2]).records.map(\.recordName) == ["app-2"])

            // The child asks for what it sees, with the same answers as its own single-zone fetches.
            let member = try #require(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).memberId)
            let childZones = [childZone, Member.zoneName(of: member), "family"]
            let seen = try await Self.fetch(server, child, childZones.map { ($0, nil) })
            for (zone, result) in zip(childZones, seen) {
                let alone = try await Self.single(server, child, zone).decode(ZoneChangesResponse.self)
                #expect(try Self.page(result) == alone)
            }
        }
    }

    /// `limit` is each zone's; a zone with more says `moreComing`, and fetching again with the
    /// tokens (only the zones with more) brings every change exactly once.
    @Test func eachZonePagesOnItsOwn() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            _ = try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"notes"}"#)
            try await Self.write(server, parent, 5, into: "notes", prefix: "n")
            try await Self.write(server, parent, 2, into: "family", prefix: "f")

            let first = try await Self.fetch(server, parent, [("notes", nil), ("family", nil)], limit: 2)
            #expect(try Self.page(first[0]).records.map(\.recordName) == ["n-0", "n-1"] && (try Self.page(first[0]).moreComing))
            #expect(try Self.page(first[1]).records.map(\.recordName) == ["f-0", "f-1"] && !(try Self.page(first[1]).moreComing))

            var seen = try Self.page(first[0]).records.map(\.recordName)
            var token = try Self.page(first[0]).changeToken
            var rounds = 0
            while true {
                rounds += 1
                let again = try await Self.fetch(server, parent, [("notes", token)], limit: 2)
                let page = try Self.page(again[0])
                seen += page.records.map(\.recordName)
                token = page.changeToken
                if !page.moreComing { break }
            }
            #expect(seen == (0..<5).map { "n-\($0)" })
            #expect(rounds == 2)
            // Done: the family zone's token brings nothing more.
            let done = try await Self.fetch(server, parent, [("family", try Self.page(first[1]).changeToken)])
            #expect(try Self.page(done[0]).records.isEmpty && !(try Self.page(done[0]).moreComing))
        }
    }

    /// The whole answer holds at most 1000 records: zones are filled in the order asked, each
    /// leaving one record's room for every zone after it; a zone cut short says `moreComing` with
    /// a token for what it did return.
    @Test func theWholeAnswerHoldsAtMostAThousandRecords() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            for zone in ["a", "b"] { _ = try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"\#(zone)"}"#) }
            try await Self.write(server, parent, 600, into: "a", prefix: "a")
            try await Self.write(server, parent, 600, into: "b", prefix: "b")
            try await Self.write(server, parent, 3, into: "family", prefix: "f")

            let first = try await Self.fetch(server, parent, [("a", nil), ("b", nil), ("family", nil)], limit: 1000)
            let pages = try first.map { try Self.page($0) }
            #expect(pages.map(\.records.count) == [600, 399, 1])
            #expect(pages.map(\.moreComing) == [false, true, true])
            #expect(pages.map(\.records.count).reduce(0, +) == Limits.maximumRecordsPerZonesFetch)

            // Again with the tokens: the rest, each record once.
            let second = try await Self.fetch(server, parent, zip(["a", "b", "family"], pages.map(\.changeToken)).map { ($0, $1) }, limit: 1000)
            let rest = try second.map { try Self.page($0) }
            #expect(rest.map(\.records.count) == [0, 201, 2])
            #expect(rest.allSatisfy { !$0.moreComing })
            let names = zip(pages, rest).map { Set($0.records.map(\.recordName) + $1.records.map(\.recordName)) }
            #expect(names == [Set((0..<600).map { "a-\($0)" }), Set((0..<600).map { "b-\($0)" }), Set((0..<3).map { "f-\($0)" })])
        }
    }

    /// A token that expired, was altered or belongs to another zone is that zone's error, named
    /// by its place in the body; the other zones are answered as if asked alone.
    @Test func aBadOrExpiredTokenFailsOnlyItsZone() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            for zone in ["old", "fresh", "other", "blank"] { _ = try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"\#(zone)"}"#) }
            let oldToken = try await Self.single(server, parent, "old").decode(ZoneChangesResponse.self).changeToken
            try await Self.write(server, parent, 2, into: "old", prefix: "o")
            try await Self.write(server, parent, 2, into: "fresh", prefix: "f")
            // Tombstones purged past the old token, not past the fresh one.
            try await server.postgres.query("UPDATE families SET horizon_seq = change_seq WHERE family_id = \(parent.familyID)", logger: testLogger)
            let freshToken = try await Self.single(server, parent, "fresh").decode(ZoneChangesResponse.self).changeToken
            try await Self.write(server, parent, 1, into: "fresh", prefix: "g")
            var altered = Array(freshToken)
            altered[altered.count / 2] = altered[altered.count / 2] == "A" ? "B" : "A"

            let before = try await server.fingerprint()
            let answer = try await Self.fetch(server, parent, [("old", oldToken), ("fresh", freshToken), ("other", String(altered)), ("family", freshToken), ("blank", "")])
            #expect(answer[0].error == ErrorResponse.Body(code: "CHANGE_TOKEN_EXPIRED", reason: "The change token is older than the tombstone horizon; fetch again without one."))
            #expect(try Self.page(answer[1]).records.map(\.recordName) == ["g-0"])
            #expect(answer[2].error?.code == "BAD_CHANGE_TOKEN" && answer[2].error?.field == "zones[2].since")
            #expect(answer[3].error?.code == "BAD_CHANGE_TOKEN" && answer[3].error?.field == "zones[3].since", "a token of another zone")
            #expect(answer[4].error?.code == "BAD_CHANGE_TOKEN" && answer[4].error?.field == "zones[4].since", "an empty token")
            // The single-zone fetch says the same of each.
            let alone = try await Self.single(server, parent, "old", since: oldToken)
            #expect(alone.status == .gone && alone.error?.code == answer[0].error?.code && alone.error?.reason == answer[0].error?.reason)
            let wrongZone = try await Self.single(server, parent, "family", since: freshToken)
            #expect(wrongZone.error?.reason == answer[3].error?.reason)
            // A read changes nothing but the device's last sync (kept at most once a minute)...
            let after = try await server.fingerprint()
            #expect(after.filter { $0.key != "devices" } == before.filter { $0.key != "devices" })
            // ...and that only when it read a zone: every zone failing fetched nothing.
            server.clock.advance(by: 3600)
            _ = try await server.send(.get, "/v1/devices/me", credential: parent.credential)
            let quiet = try await server.fingerprint()
            let failing = try await Self.fetch(server, parent, [("old", oldToken), ("nowhere", nil)])
            #expect(failing.allSatisfy { $0.page == nil })
            #expect(try await server.fingerprint() == quiet)
        }
    }

    /// A sibling's zones, and zones that are not there or were deleted, all answer exactly alike;
    /// the child's own zones are answered beside them.
    @Test func aChildCannotTellASiblingsZoneFromNone() async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            try await server.configure(fixture.childZone, by: fixture.parent, name: "mine")
            let siblingZone = Device.zoneName(forChild: fixture.sibling.deviceID)
            try await server.configure(siblingZone, by: fixture.parent, name: "theirs")
            _ = try await server.send(.post, "/v1/zones", credential: fixture.parent.credential, json: #"{"zoneName":"gone"}"#)
            _ = try await server.send(.delete, "/v1/zones/gone", credential: fixture.parent.credential)
            let ownToken = try await Self.single(server, fixture.child, fixture.childZone).decode(ZoneChangesResponse.self).changeToken

            let hidden = [siblingZone, Member.zoneName(of: fixture.siblingMemberID), "nowhere", "gone"]
            let answer = try await Self.fetch(server, fixture.child, [(fixture.childZone, nil)] + hidden.map { ($0, nil) } + [("nowhere-2", ownToken), (siblingZone + "x", ownToken)])
            #expect(try Self.page(answer[0]).records.map(\.recordName).contains("mine"))
            let missing = try await Self.single(server, fixture.child, "nowhere")
            #expect(missing.status == .notFound)
            for entry in answer.dropFirst() {
                #expect(entry.page == nil)
                #expect(entry.error == missing.error, "\(entry.zoneName) must answer as a zone that does not exist")
            }
            // With the child's own token too: the zone is looked up first, as alone.
            let withToken = try await Self.fetch(server, fixture.child, [(siblingZone, ownToken)])
            #expect(withToken[0].error == missing.error)
            let alone = try await Self.single(server, fixture.child, siblingZone, since: ownToken)
            #expect(alone.status == .notFound && alone.error == missing.error)
        }
    }

    /// Another family's zones never answer with anything of family A, even asked by name.
    @Test func anotherFamilysZoneIsNeverSeen() async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            try await server.configure(fixture.childZone, by: fixture.parent, name: "secret-app")
            try await server.configure("family", by: fixture.parent, name: "secret-settings")
            try await server.configure("family", by: fixture.otherParent, name: "theirs")

            let reply = try await server.send(
                .post, "/v1/changes/zones", credential: fixture.otherParent.credential,
                json: #"{"zones":[{"zoneName":"\#(fixture.childZone)"},{"zoneName":"member-\#(fixture.childMemberID.lowercased)"},{"zoneName":"family"}]}"#
            )
            let answer = try reply.decode(MultiZoneChangesResponse.self).zones
            let missing = try await Self.single(server, fixture.otherParent, "nowhere").error
            #expect(answer[0].error == missing && answer[1].error == missing)
            #expect(try Self.page(answer[2]).records.map(\.recordName) == ["theirs"], "its own family zone, not family A's")
            // Nothing of family A but the names it asked with.
            var body = String(buffer: reply.body).lowercased()
            for asked in [fixture.childZone, "member-\(fixture.childMemberID.lowercased)"] { body = body.replacingOccurrences(of: #""zonename":"\#(asked)""#, with: "") }
            for id in fixture.familyAIDs { #expect(!body.contains(id.lowercased)) }
            #expect(!body.contains("secret"))
        }
    }
}
