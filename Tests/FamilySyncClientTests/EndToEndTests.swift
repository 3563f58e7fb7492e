import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// A family end to end over real HTTP with nothing but the SDK as its devices: pairing, a
/// configuration and a command round trip, usage through an offline period and a restart of the
/// child's app, the parent's sync engine receiving the child's summary, and recovery from an
/// expired token, a 429 and a conflict.
// No time limit of Swift Testing's: it would count the wait for a test server's slot, which in a
// full run lasts most of the suite. `withTestServer` bounds each test from its server's
// start, and names the wait a test is stuck in.
@Suite struct EndToEndTests {
    final class Waits: Sendable {
        let recorded = Mutex<[Duration]>([])
        var all: [Duration] { recorded.withLock { $0 } }
        func sleep(_ duration: Duration) async throws { recorded.withLock { $0.append(duration) } }
    }

    /// The next `.changes` event's records of `zone` (other events and zones are skipped). The
    /// suite's time limit ends a wait for an event that never comes.
    static func nextChanges(_ events: inout SyncEvents.AsyncIterator, in zone: String, where wanted: ([RecordBody]) -> Bool = { _ in true }) async throws -> [RecordBody] {
        while let event = await events.next() {
            if case .changes(zone, let records) = event, wanted(records) { return records }
            if case .stopped(let reason) = event { throw reason }
        }
        throw TestFailure("the engine's events ended")
    }

    static func url(_ port: Int) -> URL { URL(string: "http://127.0.0.1:\(port)")! }

    @Test func aFamilyEndToEnd() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let anonymous = FamilySyncClient(serverURL: Self.url(server.port))

                // The parent creates the family and starts its engine (the CLI's `watch`).
                let family = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "America/Chicago"))
                let parent = anonymous.authenticated(as: family.credential)
                let parentEngine = SyncEngine(client: parent, store: FileSyncStateStore(url: URL(fileURLWithPath: directory + "/parent.json")), credentialReference: "mom")
                let parentRun = Task { await parentEngine.run() }
                var parentEvents = parentEngine.events.makeAsyncIterator()

                // Pairing from the QR payload; the child's engine starts while it awaits confirmation.
                let invitation = try await parent.createPairing(CreatePairingRequest(role: .child, childName: "Johnny"))
                let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Johnny's iPad", platform: .ipados, timeZone: "America/Chicago"))
                let child = anonymous.authenticated(as: accepted.credential)
                let childID = accepted.device.id
                let zone = Device.zoneName(forChild: childID)
                let childStore = FileSyncStateStore(url: URL(fileURLWithPath: directory + "/child.json"))
                let childEngine = SyncEngine(client: child, store: childStore, credentialReference: "johnny")
                let childRun = Task { await childEngine.run() }
                var childEvents = childEngine.events.makeAsyncIterator()
                #expect(try await parent.pairing(invitation.pairing.id).verificationEmoji == accepted.pairing.verificationEmoji)
                try await server.waitForHeldPolls(2)
                _ = try await parent.confirmPairing(invitation.pairing.id)

                // Configuration with its command, in one transaction; the child's poll wakes with both.
                let app: [String: JSONValue] = [
                    "logicalID": .string("app-khan"), "displayName": .string("Khan Academy"), "category": .string("learning"),
                    "pointsPerMinute": .number(5), "isEnabled": .bool(true), "blockingEnabled": .bool(false),
                ]
                let command = try await parent.sendCommand(to: childID, CreateCommandRequest(commandType: "update_config", configuration: [app]))
                let arrived = try await Self.nextChanges(&childEvents, in: zone) { records in records.contains { $0.recordType == "ConfigurationCommand" } }
                #expect(arrived.map(\.recordType).sorted() == ["AppConfiguration", "ConfigurationCommand"])
                #expect(arrived.first { $0.recordType == "AppConfiguration" }?.fields?["logicalID"] == .string("app-khan"))

                // The command round trip: delivered on the child's fetch, executed, seen by the parent.
                #expect(try await child.commands(of: childID).map(\.status) == [.delivered])
                _ = try await child.reportResult(of: UUID(uuidString: command.commandId)!, executed: true)
                let executed = try await Self.nextChanges(&parentEvents, in: zone) { records in
                    records.contains { $0.recordName == "command-\(command.commandId)" && $0.fields?["status"] == .string("executed") }
                }
                #expect(!executed.isEmpty)

                // Offline: the child's app records usage while the server cannot be reached…
                let start = server.clock.now().addingTimeInterval(-7200)
                let usage = [
                    UsageRecordBody(recordID: UUID().uuidString, logicalID: "app-khan", displayName: "Khan Academy", category: "learning", sessionStart: start, sessionEnd: start.addingTimeInterval(1500), totalSeconds: 1500, earnedPoints: 125),
                    UsageRecordBody(recordID: UUID().uuidString, logicalID: "app-game", displayName: "Brawl Stars", category: "reward", sessionStart: start.addingTimeInterval(1800), sessionEnd: start.addingTimeInterval(2700), totalSeconds: 900, earnedPoints: 0),
                ]
                let offline = FamilySyncClient(serverURL: Self.url(try freePort()), credential: accepted.credential)
                let waits = Waits()
                let beforeRestart = UsageUploadQueue(store: childStore, backoff: .init(initial: .seconds(1), maximum: .seconds(2), attempts: 2), sleep: waits.sleep)
                try await beforeRestart.enqueue(usage)
                #expect(await failure { try await beforeRestart.flush(with: offline) }?.code == .tryAgainLater)
                #expect(try await beforeRestart.pending() == usage)

                // …and is restarted: a new queue over the same state file delivers what was kept.
                childRun.cancel()
                await childRun.value
                let afterRestart = UsageUploadQueue(store: childStore)
                #expect(try await afterRestart.pending() == usage)
                let delivery = try await afterRestart.flush(with: child, timeZone: "America/Chicago")
                #expect(delivery.accepted == 2)
                #expect(try childStore.load().zoneTokens[zone] != nil, "the queue keeps the engine's tokens")

                // The parent's engine receives the child's summary, which the server derived.
                let summaries = try await Self.nextChanges(&parentEvents, in: zone) { records in records.contains { $0.recordType == "DailySummary" } }
                let summary = try #require(summaries.first { $0.recordType == "DailySummary" })
                #expect(summary.fields?["totalLearningSeconds"] == .number(1500))
                #expect(summary.fields?["totalRewardSeconds"] == .number(900))
                #expect(summary.fields?["totalPointsEarned"] == .number(125))

                // While the parent's app is closed, a change is made and then its tombstones purged:
                // the saved tokens fall behind the horizon: the engine resets the zone
                // and fetches it whole, summary included.
                parentRun.cancel()
                await parentRun.value
                _ = try await parent.sendCommand(to: childID, CreateCommandRequest(commandType: "request_sync"))
                try await server.postgres.query("UPDATE families SET horizon_seq = change_seq WHERE family_id = \(family.family.id)", logger: testLogger)
                let recovering = SyncEngine(client: parent, store: FileSyncStateStore(url: URL(fileURLWithPath: directory + "/parent.json")), credentialReference: "mom")
                let seen = try await recovering.collectEvents { try await $0.fetchChanges() }
                #expect(seen.contains(.zoneReset(zone)))
                let whole = seen.flatMap { event -> [RecordBody] in if case .changes(zone, let records) = event { records } else { [] } }
                #expect(Set(whole.map(\.recordType)) == ["AppConfiguration", "ConfigurationCommand", "UsageRecord", "DailySummary", "WeeklySummary"])
            }
        }
    }

    /// A 429 with `Retry-After` in front of the server: the queue and the engine wait exactly as told.
    @Test func aThrottledQueueAndEngineWaitAsTold() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                let (_, child) = try await server.pair(by: parent)
                try await server.configure("family", by: parent, name: "settings")
                try await withThrottlingProxy(to: server.port, path: "/v1/usage", times: 1, retryAfter: 7) { port, throttled in
                    let client = FamilySyncClient(serverURL: Self.url(port), credential: child.credential)
                    let waits = Waits()
                    let queue = UsageUploadQueue(store: FileSyncStateStore(url: URL(fileURLWithPath: directory + "/queue.json")), sleep: waits.sleep)
                    let start = server.clock.now().addingTimeInterval(-600)
                    try await queue.enqueue([UsageRecordBody(recordID: UUID().uuidString, logicalID: "a", displayName: "A", category: "learning", sessionStart: start, sessionEnd: start.addingTimeInterval(60), totalSeconds: 60)])
                    #expect(try await queue.flush(with: client).accepted == 1)
                    #expect(throttled() == 1)
                    #expect(waits.all == [.seconds(7)])
                }
                try await withThrottlingProxy(to: server.port, path: "/v1/changes", times: 2, retryAfter: 3) { port, throttled in
                    let client = FamilySyncClient(serverURL: Self.url(port), credential: child.credential)
                    let waits = Waits()
                    let engine = SyncEngine(client: client, store: FileSyncStateStore(url: URL(fileURLWithPath: directory + "/engine.json")), sleep: waits.sleep)
                    let running = Task { await engine.run() }
                    var events = engine.events.makeAsyncIterator()
                    var told: [SyncEvent] = []
                    while let event = await events.next() {
                        if case .changes = event { break }
                        told.append(event)
                    }
                    let throttledError = FamilySyncError(.throttled, "Slow down.", retryAfter: 3)
                    #expect(told == [.waiting(throttledError, retryIn: .seconds(3)), .waiting(throttledError, retryIn: .seconds(3))], "the app is told why it waits")
                    #expect(throttled() == 2)
                    #expect(waits.all == [.seconds(3), .seconds(3)])
                    running.cancel()
                    await running.value
                }
            }
        }
    }

    /// `save(_:in:)` sends each record on its own; the one that lost its conflict comes back with
    /// the server's record, the others are saved.
    @Test func aConflictSurfacesWithTheServersRecord() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let client = FamilySyncClient(serverURL: Self.url(server.port), credential: parent.credential)
            let created = try await client.save([
                RecordOperation(operationType: .create, record: RecordInput(recordName: "note", recordType: "x-Note", fields: ["text": .string("first")])),
            ], in: "family")
            guard case .saved(let original)? = created.first else { Issue.record("got \(created)"); return }
            let first = try await client.save([
                RecordOperation(operationType: .update, record: RecordInput(recordName: "note", recordType: "x-Note", fields: ["text": .string("mine")], recordChangeTag: original.recordChangeTag)),
            ], in: "family")
            guard case .saved(let winner)? = first.first else { Issue.record("got \(first)"); return }
            let stale = try await client.save([
                RecordOperation(operationType: .update, record: RecordInput(recordName: "note", recordType: "x-Note", fields: ["text": .string("theirs")], recordChangeTag: original.recordChangeTag)),
                RecordOperation(operationType: .create, record: RecordInput(recordName: "other", recordType: "x-Note", fields: ["text": .string("fine")])),
            ], in: "family")
            guard case .conflict(let serverRecord, let error)? = stale.first else { Issue.record("got \(stale)"); return }
            #expect(error.code == .conflict)
            #expect(serverRecord.recordChangeTag == winner.recordChangeTag)
            #expect(serverRecord.fields?["text"] == .string("mine"))
            guard case .saved(let other)? = stale.last else { Issue.record("got \(stale)"); return }
            #expect(other.outcome == "created")
        }
    }

    /// State saved under another credential (a device paired again), or holding a token the server
    /// refuses, is started over: the app is told to drop its zones, then gets them whole.
    @Test func stateOfAnotherCredentialOrABadTokenStartsOver() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                try await server.configure("family", by: parent, name: "settings")
                let client = FamilySyncClient(serverURL: Self.url(server.port), credential: parent.credential)
                let store = FileSyncStateStore(url: URL(fileURLWithPath: directory + "/sync.json"))
                _ = try await SyncEngine(client: client, store: store, credentialReference: "first").collectEvents { try await $0.fetchChanges() }

                let again = SyncEngine(client: client, store: store, credentialReference: "second")
                let seen = try await again.collectEvents { try await $0.fetchChanges() }
                #expect(seen.first == .zoneReset("family"))
                #expect(seen.dropFirst().contains { if case .changes("family", let records) = $0 { records.map(\.recordName) == ["settings"] } else { false } })
                #expect(try store.load().credentialReference == "second")

                try store.update { $0.databaseToken = "not-a-token" }
                let repaired = SyncEngine(client: client, store: store, credentialReference: "second")
                let after = try await repaired.collectEvents { try await $0.fetchChanges() }
                #expect(after.first == .zoneReset("family"))
                #expect(try store.load().databaseToken != "not-a-token")
            }
        }
    }
}
