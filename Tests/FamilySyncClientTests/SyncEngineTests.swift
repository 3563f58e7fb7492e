@testable import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The SDK's sync engine against a live server: it follows the change feeds, wakes on the long
/// poll, starts over when a token expires, and stops when its credential is revoked.
// No time limit of Swift Testing's: it would count the wait for a test server's slot, which in a
// full run lasts most of the suite. `withTestServer` bounds each test from its server's
// start, and names the wait a test is stuck in.
@Suite struct SyncEngineTests {
    /// A parent, a child whose zone holds one configuration, and the child's client and state file.
    static func setUp(_ server: TestServer, _ directory: String) async throws -> (TestDevice, TestDevice, String, FamilySyncClient, FileSyncStateStore) {
        let parent = try await server.createFamily()
        let (_, child) = try await server.pair(by: parent)
        let zone = Device.zoneName(forChild: child.deviceID)
        try await server.configure(zone, by: parent, name: "app-1")
        let client = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, credential: child.credential)
        return (parent, child, zone, client, FileSyncStateStore(url: URL(fileURLWithPath: directory + "/sync.json")))
    }

    @Test func aChildsEngineFollowsItsParentAndStopsWhenRevoked() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let (parent, child, zone, client, store) = try await Self.setUp(server, directory)
                let engine = SyncEngine(client: client, store: store, pollTimeout: 30, backoff: .init(initial: .milliseconds(50), maximum: .milliseconds(200)))
                let running = Task { await engine.run() }
                var events = engine.events.makeAsyncIterator()

                // The first fetch brings what is there.
                let first = try #require(await events.next("the engine's first event"))
                guard case .changes(let fetchedZone, let records) = first else { Issue.record("got \(first)"); return }
                #expect(fetchedZone == zone)
                #expect(records.map(\.recordName) == ["app-1"])

                // While the app holds the event, the engine waits: the page's token is not saved,
                // so an app killed now gets the page again on its next launch. (Seen parked, not
                // slept on: a sleep would pass however slow the engine was to do the wrong thing.)
                #expect(engine.isWaitingForTheApp)
                #expect(try store.load().zoneTokens[zone] == nil)
                #expect(server.heldPolls == 0)

                // Asking for the next event lets it go on: it saves the token and holds its poll,
                // and a parent's write wakes the poll and arrives.
                let asked = engine.nextEventAsked()
                try await server.waitForHeldPolls(1)
                #expect(try store.load().zoneTokens[zone] != nil)
                try await server.configure(zone, by: parent, name: "app-2")
                let second = try #require(await OpenWaits.during("the engine's event after the parent's write", limit: .seconds(300)) { await asked.value })
                #expect(second == .changes(zone: zone, records: (try await server.send(.post, "/v1/zones/\(zone)/records/lookup", credential: child.credential, json: #"{"recordNames":["app-2"]}"#)
                    .decode(LookupRecordsResponse.self)).records.compactMap(\.record)))
                #expect(try store.load().zoneTokens[zone] != nil)

                // Revoked: the engine says why and ends.
                let revoke = try await server.send(.delete, "/v1/devices/\(child.deviceID.lowercased)", credential: parent.credential)
                #expect(revoke.status == .noContent)
                let last = try #require(await events.next("the engine's stop on revocation"))
                guard case .stopped(let reason) = last else { Issue.record("got \(last)"); return }
                #expect(reason.code == .authenticationRequired)
                await running.value
            }
        }
    }

    /// Tokens older than the tombstone horizon: the engine says to drop the zone and fetches it whole.
    @Test func anExpiredTokenStartsTheZoneOver() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let (parent, _, zone, client, store) = try await Self.setUp(server, directory)
                let engine = SyncEngine(client: client, store: store)
                let seen = try await engine.collectEvents { engine in
                    try await engine.fetchChanges()
                    try await server.configure(zone, by: parent, name: "app-2")
                    try await server.postgres.query("UPDATE families SET horizon_seq = change_seq WHERE family_id = \(parent.familyID)", logger: testLogger)
                    try await engine.fetchChanges()
                }
                #expect(seen.first.map { if case .changes = $0 { true } else { false } } == true)
                #expect(seen[1] == .zoneReset("family") || seen[1] == .zoneReset(zone))
                let names = seen.compactMap { event -> [String]? in if case .changes(_, let records) = event { records.map(\.recordName) } else { nil } }
                #expect(names.last?.sorted() == ["app-1", "app-2"], "the zone comes whole after the reset")
            }
        }
    }

    /// A running engine woken by its poll fetches what the answer lists at once: one request after
    /// the poll (§6's answer names the changed zones), then the next poll.
    @Test func aPollsAnswerIsFollowedByOneRequest() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let (parent, child, zone, _, store) = try await Self.setUp(server, directory)
                try await withRecordingProxy(to: server.port) { port, asked in
                    let client = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, credential: child.credential)
                    let engine = SyncEngine(client: client, store: store)
                    let running = Task { await engine.run() }
                    var events = engine.events.makeAsyncIterator()
                    guard case .changes(zone, _)? = await events.next("the engine's first fetch") else { Issue.record("the first fetch"); return }
                    let next = engine.nextEventAsked()
                    try await server.waitForHeldPolls(1)
                    let caughtUp = asked().count
                    #expect(asked().last.map { "\($0.method) \($0.path)" } == "GET /v1/poll")

                    try await server.configure(zone, by: parent, name: "app-2")
                    guard case .changes(zone, let records)? = await next.value else { Issue.record("no change arrived"); return }
                    #expect(records.map(\.recordName) == ["app-2"])
                    // Asking for the next event lets the engine save the tokens and poll again.
                    let after = engine.nextEventAsked()
                    try await server.waitForHeldPolls(1)
                    #expect(asked().dropFirst(caughtUp).map { "\($0.method) \($0.path)" } == ["POST /v1/changes/zones", "GET /v1/poll"])
                    // The poll's token was saved with the zone's: the next poll waits from there.
                    let saved = try #require(try store.load().databaseToken)
                    let since = try await server.send(.get, "/v1/changes?since=\(saved)", credential: child.credential).decode(DatabaseChangesResponse.self)
                    #expect(since.zones.isEmpty && since.deletedZones.isEmpty, "nothing is left after the saved token")
                    running.cancel()
                    await engine.stop()
                    await running.value
                    _ = await after.value
                }
            }
        }
    }

    /// A zone deleted while the engine holds its poll: the answer names it, its fetch finds it
    /// gone, and the app is told to drop it.
    @Test func aZoneDeletedWhileHeldIsDropped() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                let made = try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"extra"}"#)
                #expect(made.status == .created)
                try await server.configure("extra", by: parent, name: "app-1")
                let client = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, credential: parent.credential)
                let store = FileSyncStateStore(url: URL(fileURLWithPath: directory + "/sync.json"))
                let engine = SyncEngine(client: client, store: store)
                let running = Task { await engine.run() }
                var events = engine.events.makeAsyncIterator()
                guard case .changes("extra", _)? = await events.next("the engine's first fetch") else { Issue.record("the first fetch"); return }
                let next = engine.nextEventAsked()
                try await server.waitForHeldPolls(1)
                let deleted = try await server.send(.delete, "/v1/zones/extra", credential: parent.credential)
                #expect(deleted.status == .noContent)
                #expect(await next.value == .zoneDeleted("extra"))
                let after = engine.nextEventAsked()
                try await server.waitForHeldPolls(1)
                #expect(try store.load().zoneTokens["extra"] == nil)
                running.cancel()
                await engine.stop()
                await running.value
                _ = await after.value
            }
        }
    }

    /// A wake (here a push to an engine not running) with several changed zones costs the
    /// database's changes and one multi-zone fetch (§5.5), not a request a zone; a zone whose page
    /// says more is coming is the only one asked again.
    @Test func aWakeFetchesEveryChangedZoneInOneRequest() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let (parent, child, zone, _, store) = try await Self.setUp(server, directory)
                let member = try #require(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).memberId)
                let memberZone = Member.zoneName(of: member)
                try await withRecordingProxy(to: server.port) { port, asked in
                    let client = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, credential: child.credential)
                    _ = try await SyncEngine(client: client, store: store).collectEvents { try await $0.pushReceived() }
                    let caughtUp = asked().count

                    // The parent changes three of the child's zones; 250 records in one of them.
                    try await server.configure(zone, by: parent, name: "app-2")
                    try await server.configure(memberZone, by: parent, name: "note")
                    let notes = (0..<250).map { #"{"operationType":"create","record":{"recordName":"n-\#($0)","recordType":"x-note","fields":{"n":\#($0)}}}"# }
                    let wrote = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: #"{"operations":[\#(notes.joined(separator: ","))]}"#)
                    #expect(wrote.status == .ok)

                    let seen = try await SyncEngine(client: client, store: store).collectEvents { try await $0.pushReceived() }
                    let wake = Array(asked().dropFirst(caughtUp))
                    #expect(wake.map { "\($0.method) \($0.path)" } == ["GET /v1/changes", "POST /v1/changes/zones", "POST /v1/changes/zones"])
                    let fetches = try wake.filter { $0.method == "POST" }.map { try WireCoding.makeDecoder().decode(MultiZoneChangesRequest.self, from: Data($0.body.utf8)) }
                    #expect(Set(fetches[0].zones.map(\.zoneName)) == [zone, memberZone, "family"])
                    #expect(fetches[1].zones.map(\.zoneName) == ["family"], "only the zone with more to come")
                    #expect(fetches[1].zones[0].since != nil)
                    let byZone = Dictionary(grouping: seen.compactMap { event -> (String, [String])? in
                        if case .changes(let zone, let records) = event { (zone, records.map(\.recordName)) } else { nil }
                    }, by: \.0).mapValues { $0.flatMap(\.1) }
                    #expect(byZone[zone] == ["app-2"])
                    #expect(byZone[memberZone] == ["note"])
                    #expect(byZone["family"]?.sorted() == (0..<250).map { "n-\($0)" }.sorted(), "every record once")
                    #expect(try store.load().zoneTokens.keys.sorted() == [zone, "family", memberZone].sorted())
                }
            }
        }
    }
}

/// A push is a poll's answer (§12): the engine fetches on it, running or not.
// No time limit of Swift Testing's: it would count the wait for a test server's slot, which in a
// full run lasts most of the suite. `withTestServer` bounds each test from its server's
// start, and names the wait a test is stuck in.
@Suite struct SyncEnginePushTests {
    /// Waits until `condition` holds, failing after 10 s.
    static func until(_ what: String, _ condition: @Sendable () -> Bool) async throws {
        try await OpenWaits.during(what, limit: .seconds(10)) {
            let deadline = ContinuousClock.now + .seconds(10)
            while !condition() {
                guard ContinuousClock.now < deadline else { throw TestFailure("never: \(what)") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    @Test func aPushWakesARunningEngineWhosePollIsDead() async throws {
        try await withTestServer { server in
            try await withStalledPolls(to: server.port) { port, held in
                try await withTemporaryDirectory { directory in
                    let (parent, child, zone, _, store) = try await SyncEngineTests.setUp(server, directory)
                    let client = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, credential: child.credential)
                    let engine = SyncEngine(client: client, store: store, pollTimeout: 30)
                    let running = Task { await engine.run() }
                    var events = engine.events.makeAsyncIterator()
                    let first = try #require(await events.next("the engine's first event"))
                    #expect(first.changedRecordNames == ["app-1"])
                    // Asked for more, it holds a poll that will never answer.
                    let asked = engine.nextEventAsked()
                    try await Self.until("a poll held at the hop") { held() == 1 }
                    try await server.configure(zone, by: parent, name: "app-2")
                    // The push: the engine lets go of the dead poll, fetches the change, polls again.
                    let pushed = Task { try await engine.pushReceived() }
                    let second = try #require(await OpenWaits.during("the engine's event after the parent's write", limit: .seconds(300)) { await asked.value })
                    #expect(second.changedRecordNames == ["app-2"])
                    // The app takes the next event as it goes on: the fetch ends, then the push's call.
                    let third = engine.nextEventAsked()
                    try await pushed.value
                    try await Self.until("the engine polling again") { held() == 1 }
                    running.cancel()
                    await running.value
                    third.cancel()
                }
            }
        }
    }

    @Test func aPushToAnEngineNotRunningFetches() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let (parent, _, zone, client, store) = try await SyncEngineTests.setUp(server, directory)
                let engine = SyncEngine(client: client, store: store)
                let before = try await engine.collectEvents { try await $0.pushReceived() }
                #expect(before.flatMap(\.changedRecordNames) == ["app-1"])
                try await server.configure(zone, by: parent, name: "app-2")
                let after = try await SyncEngine(client: client, store: store).collectEvents { try await $0.pushReceived() }
                #expect(after.flatMap(\.changedRecordNames) == ["app-2"])
            }
        }
    }
}

extension SyncEvent {
    /// The names of the records a `changes` event brings; none for another event.
    var changedRecordNames: [String] {
        if case .changes(_, let records) = self { return records.map(\.recordName) }
        return []
    }
}

extension SyncEngine {
    /// The app asking for the next event in the background: the engine goes on meanwhile (it
    /// saves the tokens of the event before and holds its poll).
    nonisolated func nextEventAsked() -> Task<SyncEvent?, Never> {
        Task {
            var next = events.makeAsyncIterator()
            return await next.next()
        }
    }
}
