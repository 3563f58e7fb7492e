import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing

/// The engine's sending half (docs/sdk.md, "Sending changes"): changes a parent makes offline are
/// kept, sent in order with idempotency keys, and reach the child exactly once; the app is told
/// what became of each.
@Suite struct SyncEngineOutboxTests {
    static func url(_ port: Int) -> URL { URL(string: "http://127.0.0.1:\(port)")! }

    static func store(_ directory: String, _ name: String) -> FileSyncStateStore {
        FileSyncStateStore(url: URL(fileURLWithPath: directory + "/\(name).json"))
    }

    static func app(_ index: Int, _ name: String = "App") -> [String: JSONValue] {
        ["logicalID": .string("app-\(index)"), "displayName": .string(name), "category": .string("learning"), "isEnabled": .bool(true), "blockingEnabled": .bool(false)]
    }

    /// What the `sent` events of `events` tell, in order.
    static func sent(_ events: [SyncEvent]) -> [SentChange] {
        events.flatMap { event -> [SentChange] in if case .sent(let changes, _) = event { changes } else { [] } }
    }

    /// Sends until nothing is pending, an engine a launch (the run loop's retries, as an app's
    /// next launches would): `collectEvents` ends its engine's events.
    static func drain(_ client: FamilySyncClient, _ store: FileSyncStateStore, attempts: Int = 4) async throws -> [SentChange] {
        var all: [SentChange] = []
        for attempt in 1...attempts {
            do {
                all += sent(try await SyncEngine(client: client, store: store).collectEvents { try await $0.sendPendingChanges() })
                return all
            } catch let error as FamilySyncError where error.code == .tryAgainLater && attempt < attempts {
                continue
            }
        }
        return all
    }

    static func isDone(_ sent: SentChange) -> Bool {
        switch sent.outcome {
        case .saved, .commandCreated: true
        case .conflict, .failed: false
        }
    }

    @Test(arguments: TestTransport.allCases)
    func changesMadeOfflineArriveOnceAfterARestart(_ via: TestTransport) async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                let (_, child) = try await server.pair(by: parent)
                let zone = Device.zoneName(forChild: child.deviceID)
                // The server cannot be reached: nothing listens where the engine sends.
                let down = FamilySyncClient(serverURL: Self.url(try freePort()), credential: parent.credential, transport: via.transport)
                let offline = SyncEngine(client: down, store: Self.store(directory, "parent"))
                for index in 0..<8 { try await offline.add(.appConfiguration(Self.app(index), named: "app-\(index)", in: zone)) }
                try await offline.add(.command(CreateCommandRequest(commandType: "block"), to: child.deviceID))
                try await offline.add(.command(CreateCommandRequest(commandType: "request_sync"), to: child.deviceID))
                #expect(try offline.pendingChanges().count == 10)
                await #expect(throws: FamilySyncError.self) { _ = try await offline.collectEvents { try await $0.sendPendingChanges() } }
                #expect(try offline.pendingChanges().count == 10)

                // The app starts again, reading the same state, and the server is back.
                let up = FamilySyncClient(serverURL: Self.url(server.port), credential: parent.credential, transport: via.transport)
                let restarted = SyncEngine(client: up, store: Self.store(directory, "parent"))
                let sent = try await Self.drain(up, Self.store(directory, "parent"))
                #expect(sent.count == 10)
                #expect(sent.allSatisfy(Self.isDone), "\(sent.map(\.outcome))")
                #expect(try restarted.pendingChanges().isEmpty)
                // In the order made: the records, then the two commands.
                #expect(sent.prefix(8).compactMap(\.change.record?.recordName) == (0..<8).map { "app-\($0)" })
                #expect(sent.suffix(2).allSatisfy { $0.change.record == nil })
                // Sending again sends nothing.
                #expect(try await Self.drain(up, Self.store(directory, "parent")).isEmpty)

                let childClient = FamilySyncClient(serverURL: Self.url(server.port), credential: child.credential, transport: via.transport)
                let seen = try await SyncEngine(client: childClient, store: Self.store(directory, "child")).collectEvents { try await $0.fetchChanges() }
                let records = seen.flatMap { event -> [RecordBody] in if case .changes(_, let records) = event { records } else { [] } }
                for index in 0..<8 { #expect(records.filter { $0.recordName == "app-\(index)" }.count == 1, "app-\(index)") }
                #expect(records.filter { $0.recordType == "ConfigurationCommand" }.count == 2)
            }
        }
    }

    @Test(arguments: TestTransport.allCases)
    func anAnswerLostAfterTheCommitIsSentAgainAndAppliedOnce(_ via: TestTransport) async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                let (_, child) = try await server.pair(by: parent)
                let proxy = try AnswerDroppingProxy(to: server.port, dropping: "POST /v1/", times: 2)
                defer { proxy.stop() }
                let client = FamilySyncClient(serverURL: Self.url(proxy.port), credential: parent.credential, transport: via.transport)
                let engine = SyncEngine(client: client, store: Self.store(directory, "parent"))
                // Creates: a second effect would be EXISTS; a command: a second command.
                try await engine.add([
                    .save(RecordInput(recordName: "note-1", recordType: "x-note", fields: ["text": .string("one")]), in: "family"),
                    .save(RecordInput(recordName: "note-2", recordType: "x-note", fields: ["text": .string("two")]), in: "family"),
                    .command(CreateCommandRequest(commandType: "block"), to: child.deviceID),
                ])
                let sent = try await Self.drain(client, Self.store(directory, "parent"))
                #expect(proxy.dropped.withLock { $0.count } == 2)
                #expect(sent.count == 3)
                #expect(sent.allSatisfy(Self.isDone), "\(sent.map(\.outcome))")
                let commands = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/commands", credential: parent.credential)
                #expect(try commands.decode(CommandList.self).commands.count == 1)
                #expect(proxy.forwarded.withLock { $0.filter { $0.hasPrefix("POST") }.count } >= 4)
            }
        }
    }

    /// Two parents change one record offline. The first online saves; the second's older change
    /// loses under §5.4 and its app gets the server's record, as CKSyncEngine's
    /// `serverRecordChanged`; the child sees the winner.
    @Test(arguments: TestTransport.allCases)
    func twoParentsChangingOneRecordOfflineAreDecidedByTheServer(_ via: TestTransport) async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let mom = try await server.createFamily()
                let (_, child) = try await server.pair(by: mom)
                let (_, dad) = try await server.pair(by: mom, role: .parent)
                let zone = Device.zoneName(forChild: child.deviceID)
                try await server.configure(zone, by: mom, name: "app-1")
                let momClient = FamilySyncClient(serverURL: Self.url(server.port), credential: mom.credential, transport: via.transport)
                let stored = try #require(try await momClient.lookup(zone, names: ["app-1"]).records.first?.record)
                // The server's clock: a change stamped after it (plus a minute) counts as made then.
                let now = server.clock.now()
                var momsFields = Self.app(1, "Mom's"), dadsFields = Self.app(1, "Dad's")
                momsFields["logicalID"] = .string("app-1")
                dadsFields["logicalID"] = .string("app-1")
                let momsEngine = SyncEngine(client: momClient, store: Self.store(directory, "mom"))
                try await momsEngine.add(.appConfiguration(momsFields, named: "app-1", in: zone, changeTag: stored.recordChangeTag, at: now.addingTimeInterval(-60)))
                let dadClient = FamilySyncClient(serverURL: Self.url(server.port), credential: dad.credential, transport: via.transport)
                let dadsEngine = SyncEngine(client: dadClient, store: Self.store(directory, "dad"))
                try await dadsEngine.add(.appConfiguration(dadsFields, named: "app-1", in: zone, changeTag: stored.recordChangeTag, at: now.addingTimeInterval(-30)))

                let dads = try await Self.drain(dadClient, Self.store(directory, "dad"))
                guard case .saved(let saved)? = dads.first?.outcome else { Issue.record("dad: \(dads)"); return }
                let moms = try await Self.drain(momClient, Self.store(directory, "mom"))
                guard case .conflict(let stored, let error)? = moms.first?.outcome else { Issue.record("mom: \(moms)"); return }
                #expect(error.code == .conflict)
                #expect(stored.fields?["displayName"] == .string("Dad's"))
                #expect(stored.recordChangeTag == saved.recordChangeTag)
                #expect(try momsEngine.pendingChanges().isEmpty)

                let childClient = FamilySyncClient(serverURL: Self.url(server.port), credential: child.credential, transport: via.transport)
                let seen = try await SyncEngine(client: childClient, store: Self.store(directory, "child")).collectEvents { try await $0.fetchChanges() }
                let records = seen.flatMap { event -> [RecordBody] in if case .changes(_, let records) = event { records } else { [] } }
                #expect(records.filter { $0.recordName == "app-1" }.map { $0.fields?["displayName"] } == [.string("Dad's")])
            }
        }
    }

    /// A revoked parent's engine tells its app each pending change failed, with the reason, and stops.
    @Test(arguments: TestTransport.allCases)
    func aRevokedParentsPendingChangesEndAsFailed(_ via: TestTransport) async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let mom = try await server.createFamily()
                let (_, dad) = try await server.pair(by: mom, role: .parent)
                let dadClient = FamilySyncClient(serverURL: Self.url(server.port), credential: dad.credential, transport: via.transport)
                let engine = SyncEngine(client: dadClient, store: Self.store(directory, "dad"), backoff: .init(initial: .milliseconds(50), maximum: .milliseconds(200)))
                try await engine.add((0..<3).map { .save(RecordInput(recordName: "note-\($0)", recordType: "x-note", fields: ["n": .number(Double($0))]), in: "family") })
                let revoke = try await server.send(.delete, "/v1/devices/\(dad.deviceID.lowercased)", credential: mom.credential)
                #expect(revoke.status.kind == .successful)

                let running = Task { await engine.run() }
                var events = engine.events.makeAsyncIterator()
                let told = try #require(await events.next("the failed changes"))
                guard case .sent(let changes, let stillPending) = told else { Issue.record("got \(told)"); return }
                #expect(changes.count == 3)
                #expect(stillPending == 0)
                for change in changes {
                    guard case .failed(let error) = change.outcome else { Issue.record("got \(change.outcome)"); continue }
                    #expect(error.code == .authenticationRequired)
                }
                let last = try #require(await events.next("the engine's stop"))
                guard case .stopped = last else { Issue.record("got \(last)"); return }
                await running.value
                #expect(try engine.pendingChanges().isEmpty)
            }
        }
    }

    /// A running engine holding its poll sends a change the app adds at once: it lets go of the
    /// poll (which, through this hop, would never answer), sends, and the app hears of it, then of
    /// the change coming back through the fetch it does next.
    @Test func aRunningEngineSendsAChangeAtOnce() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                try await withStalledPolls(to: server.port) { port, held in
                    let client = FamilySyncClient(serverURL: Self.url(port), credential: parent.credential)
                    // A short backoff and a minute to reach the poll: at the start of the Citus
                    // pass, with every suite starting at once, the first fetch through the hop
                    // took more than the push tests' 10 s; what is tested starts at the poll.
                    let engine = SyncEngine(
                        client: client, store: Self.store(directory, "parent"), backoff: .init(initial: .milliseconds(50), maximum: .milliseconds(500))
                    )
                    let running = Task { await engine.run() }
                    var events = engine.events.makeAsyncIterator()
                    try await PollHeartbeatSDKTests.until("a poll held at the hop") { held() == 1 }
                    try await engine.add(.save(RecordInput(recordName: "note", recordType: "x-note", fields: ["text": .string("now")]), in: "family"))
                    let told = try #require(await events.next("the sent event"))
                    guard case .sent(let changes, 0) = told, case .saved(let saved)? = changes.first?.outcome else { Issue.record("got \(told)"); return }
                    #expect(saved.recordName == "note")
                    let fetched = try #require(await events.next("the fetch after it"))
                    #expect(fetched.changedRecordNames == ["note"])
                    running.cancel()
                    await running.value
                }
            }
        }
    }

    /// 1,000 pending changes go as requests of 400, 400 and 200 operations, in the order made.
    @Test func aThousandChangesGoInBatchesOfFourHundredInOrder() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                try await withRecordingProxy(to: server.port) { port, asked in
                    let client = FamilySyncClient(serverURL: Self.url(port), credential: parent.credential, transport: TestTransport.asyncHTTPClient.transport)
                    let engine = SyncEngine(client: client, store: Self.store(directory, "parent"))
                    let names = (0..<1000).map { String(format: "note-%04d", $0) }
                    try await engine.add(names.map { .save(RecordInput(recordName: $0, recordType: "x-note", fields: ["text": .string($0)]), in: "family") })
                    let events = try await engine.collectEvents { try await $0.sendPendingChanges() }
                    let batches = events.compactMap { event -> (Int, Int)? in if case .sent(let changes, let left) = event { (changes.count, left) } else { nil } }
                    #expect(batches.map(\.0) == [400, 400, 200])
                    #expect(batches.map(\.1) == [600, 200, 0])
                    #expect(Self.sent(events).compactMap(\.change.record?.recordName) == names)
                    #expect(Self.sent(events).allSatisfy(Self.isDone))
                    let modifies = asked().filter { $0.path.hasSuffix("/records/modify") }
                    #expect(modifies.count == 3)
                    let sentNames = try modifies.flatMap { request in
                        try WireCoding.makeDecoder().decode(ModifyRecordsRequest.self, from: Data(request.body.utf8)).operations.map(\.record.recordName)
                    }
                    #expect(sentNames == names)
                }
            }
        }
    }

    /// A fetched page does not undo what the app has not sent: the pending record is held back
    /// until its own save is answered.
    @Test func aPendingSaveIsNotOverwrittenByAFetchedOlderVersion() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                try await server.configure("family", by: parent, name: "kept")
                try await server.configure("family", by: parent, name: "other")
                let client = FamilySyncClient(serverURL: Self.url(server.port), credential: parent.credential)
                let engine = SyncEngine(client: client, store: Self.store(directory, "parent"))
                try await engine.add(.save(RecordInput(recordName: "kept", recordType: "x-note", fields: ["text": .string("mine")]), in: "family", operation: .forceReplace))
                let fetched = try await engine.collectEvents { try await $0.fetchChanges() }
                #expect(fetched.flatMap(\.changedRecordNames) == ["other"])
                let sent = try await Self.drain(client, Self.store(directory, "parent"))
                guard case .saved(let saved)? = sent.first?.outcome else { Issue.record("got \(sent)"); return }
                #expect(saved.fields?["text"] == .string("mine"))
                let after = try await SyncEngine(client: client, store: Self.store(directory, "parent")).collectEvents { try await $0.fetchChanges() }
                #expect(after.flatMap(\.changedRecordNames) == ["kept"])
            }
        }
    }
}

/// The outbox's rules, without a server.
@Suite struct OutboxRuleTests {
    static func save(_ name: String, _ text: String, tag: String? = nil, zone: String = "family") -> PendingChange {
        .save(RecordInput(recordName: name, recordType: "x-note", fields: ["text": .string(text)], recordChangeTag: tag), in: zone)
    }

    static func operation(_ change: PendingChange) -> RecordOperation? {
        if case .record(_, let operation) = change.kind { return operation }
        return nil
    }

    @Test func twoSavesOfOneRecordSendTheLast() {
        let pending = [Self.save("a", "1", tag: "t"), Self.save("b", "x", tag: "t"), Self.save("a", "2", tag: "t")].reduce([]) { Outbox.adding($1, to: $0) }
        #expect(pending.map { $0.record?.recordName } == ["b", "a"])
        #expect(Self.operation(pending[1])?.record.fields?["text"] == .string("2"))
    }

    @Test func aSaveThenADeleteSendsTheDelete() {
        let pending = [Self.save("a", "1", tag: "t"), PendingChange.delete("a", changeTag: "t", in: "family")].reduce([]) { Outbox.adding($1, to: $0) }
        #expect(pending.count == 1)
        #expect(Self.operation(pending[0])?.operationType == .delete)
    }

    /// A record made here and deleted before it was sent never reaches the server.
    @Test func aCreateThenADeleteSendsNothing() {
        let pending = [Self.save("a", "1"), PendingChange.delete("a", in: "family")].reduce([]) { Outbox.adding($1, to: $0) }
        #expect(pending.isEmpty)
    }

    @Test func aCreateSavedAgainIsStillACreate() {
        let pending = [Self.save("a", "1"), Self.save("a", "2", tag: nil)].reduce([]) { Outbox.adding($1, to: $0) }
        #expect(Self.operation(pending[0])?.operationType == .create)
        #expect(Self.operation(pending[0])?.record.fields?["text"] == .string("2"))
    }

    @Test func commandsAreNeverMerged() {
        let block = PendingChange.command(CreateCommandRequest(commandType: "block"), to: UUID())
        let pending = [block, block].reduce([]) { Outbox.adding($1, to: $0) }
        #expect(pending.count == 2)
    }

    @Test func aBatchIsOneZonesChangesUpToTheNextCommandAndAtMost400() {
        let child = UUID()
        let pending = [Self.save("a", "1"), Self.save("b", "1", zone: "other"), Self.save("c", "1"), .command(CreateCommandRequest(commandType: "block"), to: child), Self.save("d", "1")]
        #expect(Outbox.nextBatch(of: pending).map { $0.record?.recordName } == ["a", "c"])
        #expect(Outbox.nextBatch(of: Array(pending.dropFirst(3))).count == 1)
        let many = (0..<450).map { Self.save("n\($0)", "x") }
        #expect(Outbox.nextBatch(of: many).count == 400)
    }
}
