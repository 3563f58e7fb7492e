import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Prometheus
import ServiceLifecycle

/// The SDK against hand-written HTTP doing the same work, both in this process against the same
/// in-process server (embedded PostgreSQL, fsync on):
/// (a) wake latency: from a parent's write to the child holding the record, through the
///     `SyncEngine` over each transport (long poll, then the zones its answer names in one multi-zone fetch, the state
///     file saved durably once a wake) against a bare loop of the same two requests keeping its
///     tokens in memory;
/// (b) the offline queue: `UsageUploadQueue.enqueue` then `flush` of N records (saved durably
///     before sending, removed batch by batch) against plain `POST /v1/usage` of the same shape.
enum SyncBenchmark {
    static func run(_ arguments: [String]) async throws {
        let rounds = arguments.count > 0 ? Int(arguments[0]) ?? 200 : 200
        let queued = arguments.count > 1 ? Int(arguments[1]) ?? 5000 : 5000
        let inProcess = try await InProcessServer.start(limits: Limits(maxBodyBytes: 16 << 20))
        let server = URL(string: inProcess.base)!
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let stateDirectory = inProcess.directory + "-state"
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }

        do {
            let anonymous = FamilySyncClient(serverURL: server, httpClient: http)
            let family = try await anonymous.createFamily(.init(name: "Bench parent", platform: .macos, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: family.credential)
            let invitation = try await parent.createPairing(.init(role: .child, childName: "Bench"))
            let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Bench child", platform: .ipados, timeZone: "UTC"))
            _ = try await parent.confirmPairing(invitation.pairing.id)
            let child = anonymous.authenticated(as: accepted.credential)
            let zone = Device.zoneName(forChild: accepted.device.id)

            func write(_ name: String) async throws {
                let fields: [String: JSONValue] = [
                    "logicalID": .string(name), "displayName": .string(name), "category": .string("learning"),
                    "isEnabled": .bool(true), "blockingEnabled": .bool(false),
                ]
                _ = try await parent.modify(zone, ModifyRecordsRequest(operations: [.init(operationType: .forceReplace, record: .init(recordName: name, recordType: "AppConfiguration", fields: fields))]))
            }
            let clock = ContinuousClock()

            // (a) Baseline: the engine's requests by hand, tokens in memory: the held poll, then the
            // zones its answer names in one multi-zone fetch (what the engine asks).
            var databaseToken = try await child.databaseChanges(since: nil).changeToken
            var zoneToken = try await child.zoneChanges(zone, since: nil).changeToken
            var bare: [Double] = []
            var writes: [Double] = []
            for round in 0..<rounds {
                let name = "bare-\(round)"
                var arrived = false
                var start: ContinuousClock.Instant?
                while !arrived {
                    let since = databaseToken
                    let poll = Task { try await child.poll(since: since, timeout: 60) }
                    if start == nil {
                        try await Task.sleep(for: .milliseconds(5))
                        start = clock.now
                        try await write(name)
                        writes.append(seconds(clock.now - start!) * 1000)
                    }
                    let answer = try await poll.value
                    databaseToken = answer.changeToken
                    guard answer.zones?.contains(zone) == true else { continue }
                    let pages = try await child.changes(inZones: [.init(zoneName: zone, since: zoneToken)])
                    let records = try pages[0].outcome.get()
                    zoneToken = records.changeToken
                    arrived = records.records.contains { $0.recordName == name }
                }
                bare.append(seconds(clock.now - start!) * 1000)
            }

            // (a) The SDK's engine, its state in a file: over AsyncHTTPClient (the bare loop's
            // transport), then over URLSession, the SDK's default.
            func engineRounds(_ client: FamilySyncClient, _ label: String) async throws -> [Double] {
                let store = FileSyncStateStore(url: URL(fileURLWithPath: stateDirectory + "/engine-\(label).json"))
                let engine = SyncEngine(client: client, store: store, credentialReference: "bench", pollTimeout: 60)
                try await engine.startFromNow()
                let running = Task { await engine.run() }
                var events = engine.events.makeAsyncIterator()
                var times: [Double] = []
                for round in 0..<rounds {
                    let name = "sdk-\(label)-\(round)"
                    try await Task.sleep(for: .milliseconds(5))
                    let start = clock.now
                    try await write(name)
                    var arrived = false
                    while !arrived, let event = await events.next() {
                        if case .changes(_, let records) = event { arrived = records.contains { $0.recordName == name } }
                    }
                    times.append(seconds(clock.now - start) * 1000)
                }
                running.cancel()
                await engine.stop()
                await running.value
                return times.sorted()
            }
            let overURLSession = FamilySyncClient(serverURL: server, credential: accepted.credential)
            let sdk = try await engineRounds(child, "asynchttpclient")
            let sdkURLSession = try await engineRounds(overURLSession, "urlsession")

            // (b) The queue against plain uploads, each on days of its own, the same shape.
            func records(daysBack offset: Int) -> [UsageRecordBody] {
                let today = Calendar(identifier: .gregorian).startOfDay(for: Date())
                return (0..<queued).map { index in
                    let day = today.addingTimeInterval(-TimeInterval(offset + index % 5 + 1) * 86_400)
                    let start = day.addingTimeInterval(TimeInterval(index * 7 % 86_000))
                    return UsageRecordBody(
                        recordID: UUID().lowercased, logicalID: "app-\(index % 20)", displayName: "App", category: index % 2 == 0 ? "learning" : "reward",
                        sessionStart: start, sessionEnd: start.addingTimeInterval(300), totalSeconds: 300, earnedPoints: 5
                    )
                }
            }
            let plainRecords = records(daysBack: 0)
            let plainStart = clock.now
            for batch in stride(from: 0, to: plainRecords.count, by: 1000).map({ Array(plainRecords[$0..<min($0 + 1000, plainRecords.count)]) }) {
                _ = try await child.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: batch))
            }
            let plainSeconds = seconds(clock.now - plainStart)
            func queueRun(_ client: FamilySyncClient, daysBack: Int, _ label: String) async throws -> (total: Double, enqueue: Double) {
                let queue = UsageUploadQueue(store: FileSyncStateStore(url: URL(fileURLWithPath: stateDirectory + "/queue-\(label).json")))
                let queueRecords = records(daysBack: daysBack)
                let queueStart = clock.now
                try await queue.enqueue(queueRecords)
                let enqueued = clock.now
                let delivery = try await queue.flush(with: client, timeZone: "UTC")
                guard delivery.accepted == queued else { throw BenchFailure("the queue delivered \(delivery.accepted) of \(queued)") }
                return (seconds(clock.now - queueStart), seconds(enqueued - queueStart))
            }
            let (queueSeconds, enqueueSeconds) = try await queueRun(child, daysBack: 5, "asynchttpclient")
            let (queueURLSessionSeconds, _) = try await queueRun(overURLSession, daysBack: 10, "urlsession")

            bare.sort()
            print("FamilySync SDK benchmark (\(rounds) wake rounds, \(queued) queued usage records; in-process server, fsync on)")
            print(String(format: "  (a) write → record at the child, bare HTTP loop: p50 %.2f ms, p99 %.2f ms", percentile(bare, 0.5), percentile(bare, 0.99)))
            print(String(format: "      of which the parent's write until its answer (commit, fsync):  p50 %.2f ms", percentile(writes, 0.5)))
            print(String(format: "  (a) write → record at the child, SyncEngine:     p50 %.2f ms, p99 %.2f ms", percentile(sdk, 0.5), percentile(sdk, 0.99)))
            print(String(format: "  (a) ratio of p50s SyncEngine / bare: %.2f", percentile(sdk, 0.5) / percentile(bare, 0.5)))
            print(String(format: "  (a) SyncEngine over URLSession (the SDK's default): p50 %.2f ms, p99 %.2f ms; ratio of p50s to bare %.2f",
                         percentile(sdkURLSession, 0.5), percentile(sdkURLSession, 0.99), percentile(sdkURLSession, 0.5) / percentile(bare, 0.5)))
            print(String(format: "  (b) plain uploads: %.0f records/s (%.2f s)", Double(queued) / plainSeconds, plainSeconds))
            print(String(format: "  (b) queue enqueue + flush: %.0f records/s (%.2f s, of which enqueue %.3f s)", Double(queued) / queueSeconds, queueSeconds, enqueueSeconds))
            print(String(format: "  (b) ratio queue / plain: %.2f", plainSeconds / queueSeconds))
            print(String(format: "  (b) queue over URLSession: %.0f records/s; ratio to plain %.2f", Double(queued) / queueURLSessionSeconds, plainSeconds / queueURLSessionSeconds))
        } catch {
            print("benchmark failed: \(error)")
        }
        try await http.shutdown()
        try await inProcess.stop()
    }
}
