import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// The engine's outbox (docs/sdk.md, "Sending changes"), with the server in this process: 1,000
/// changes drained by `SyncEngine` (added in one call, kept in a state file, sent in batches of 400
/// with idempotency keys, one `sent` event a batch) against the same changes sent by hand, in the
/// same run, alternating:
///   (a) by hand, batched: `client.save` of 400, 400 and 200, no state, no keys (the floor);
///   (a') the same with an Idempotency-Key each (what the server's keeping costs);
///   (b) by hand, one request a change, as an app without an outbox sends each edit;
///   (c) the engine.
/// Each round writes fresh records (forced saves of `x-note` records in the family zone).
enum OutboxBenchmark {
    static func run(_ arguments: [String]) async throws {
        let changes = arguments.count > 0 ? Int(arguments[0]) ?? 1000 : 1000
        let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 3 : 3
        let server = try await InProcessServer.start()
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(timeout: .init(connect: .seconds(5), read: .seconds(60))))
        do {
            try await measure(server: server, http: http, changes: changes, rounds: rounds)
        } catch {
            // Its embedded PostgreSQL must not outlive a failed run.
            try? await http.shutdown()
            try? await server.stop()
            throw error
        }
        try await http.shutdown()
        try await server.stop()
    }

    static func measure(server: InProcessServer, http: HTTPClient, changes count: Int, rounds: Int) async throws {
        let clock = ContinuousClock()
        let anonymous = FamilySyncClient(serverURL: URL(string: server.base)!, httpClient: http)
        let family = try await anonymous.createFamily(.init(name: "Outbox parent", platform: .ios, timeZone: "UTC"))
        let parent = anonymous.authenticated(as: family.credential)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("familysync-outbox-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        func operations(_ round: Int, _ kind: String) -> [RecordOperation] {
            (0..<count).map { index in
                RecordOperation(operationType: .forceReplace, record: RecordInput(
                    recordName: "\(kind)-\(round)-\(index)", recordType: "x-note", fields: ["text": .string("change \(index)")], clientModifiedAt: Date()
                ))
            }
        }
        var batched: [Double] = [], keyed: [Double] = [], single: [Double] = [], engine: [Double] = [], adding: [Double] = [], requests = 0
        for round in 0..<rounds {
            var start = clock.now
            for batch in stride(from: 0, to: count, by: Limits.maximumOperations).map({ Array(operations(round, "batched")[$0..<min($0 + Limits.maximumOperations, count)]) }) {
                let outcomes = try await parent.save(batch, in: "family")
                guard outcomes.allSatisfy({ if case .saved = $0 { true } else { false } }) else { throw BenchFailure("a batched save failed") }
            }
            batched.append(seconds(clock.now - start))

            start = clock.now
            for batch in stride(from: 0, to: count, by: Limits.maximumOperations).map({ Array(operations(round, "keyed")[$0..<min($0 + Limits.maximumOperations, count)]) }) {
                let outcomes = try await parent.save(batch, in: "family", idempotencyKey: UUID().uuidString)
                guard outcomes.allSatisfy({ if case .saved = $0 { true } else { false } }) else { throw BenchFailure("a keyed save failed") }
            }
            keyed.append(seconds(clock.now - start))

            start = clock.now
            for operation in operations(round, "single") {
                guard case .saved? = try await parent.save([operation], in: "family").first else { throw BenchFailure("a save failed") }
            }
            single.append(seconds(clock.now - start))

            let store = FileSyncStateStore(url: directory.appendingPathComponent("state-\(round).json"))
            let outbox = SyncEngine(client: parent, store: store)
            start = clock.now
            try await outbox.add(operations(round, "engine").map { PendingChange(.record(zone: "family", operation: $0)) })
            adding.append(seconds(clock.now - start))
            let sending = Task {
                defer { Task { await outbox.stop() } }
                try await outbox.sendPendingChanges()
            }
            var saved = 0
            for await event in outbox.events {
                guard case .sent(let sent, _) = event else { continue }
                requests += 1
                saved += sent.filter { if case .saved = $0.outcome { true } else { false } }.count
            }
            try await sending.value
            engine.append(seconds(clock.now - start))
            guard saved == count, try outbox.pendingChanges().isEmpty else { throw BenchFailure("the engine saved \(saved) of \(count)") }
        }
        print("FamilySync outbox benchmark: \(count) changes, \(rounds) rounds, alternating (median)")
        print(String(format: "  (a) by hand, batches of %d:        %7.1f ms", Limits.maximumOperations, median(batched) * 1000))
        print(String(format: "  (a') the same with Idempotency-Keys: %7.1f ms", median(keyed) * 1000))
        print(String(format: "  (b) by hand, one request a change: %7.1f ms", median(single) * 1000))
        print(String(format: "  (c) the engine's outbox:           %7.1f ms (%d requests a drain; of it, adding the changes to the state %.1f ms)", median(engine) * 1000, requests / rounds, median(adding) * 1000))
        print(String(format: "  ratio (c)/(a) %.2f, (a')/(a) %.2f, (c)/(b) %.3f", median(engine) / median(batched), median(keyed) / median(batched), median(engine) / median(single)))
    }
}
