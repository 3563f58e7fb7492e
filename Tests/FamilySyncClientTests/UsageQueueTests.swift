import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing

/// The SDK's offline usage queue: nothing recorded is lost to a server that is down or to a
/// restart of the app, and what is delivered twice counts once.
@Suite struct UsageQueueTests {
    final class Waits: Sendable {
        let recorded = Mutex<[Duration]>([])
        var all: [Duration] { recorded.withLock { $0 } }
        func sleep(_ duration: Duration) async throws { recorded.withLock { $0.append(duration) } }
    }

    static func record(_ server: TestServer, _ app: String, points: Int = 1) -> UsageRecordBody {
        let start = server.clock.now().addingTimeInterval(-3600)
        return UsageRecordBody(
            recordID: UUID().uuidString, logicalID: app, displayName: app, category: "learning",
            sessionStart: start, sessionEnd: start.addingTimeInterval(300), totalSeconds: 300, earnedPoints: points
        )
    }

    @Test func theQueueSurvivesAServerThatIsDownAndARestart() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                let (_, child) = try await server.pair(by: parent)
                let store = FileSyncStateStore(url: URL(fileURLWithPath: directory + "/state/sync.json"))
                let records = [Self.record(server, "a"), Self.record(server, "b"), Self.record(server, "c")]
                let waits = Waits()
                let first = UsageUploadQueue(store: store, backoff: .init(initial: .seconds(1), maximum: .seconds(4), attempts: 3), sleep: waits.sleep)
                try await first.enqueue(records)

                // The server is down: the queue waits and retries, gives up, and keeps everything.
                let down = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(try freePort())")!, credential: child.credential)
                await #expect(throws: FamilySyncError.self) { try await first.flush(with: down) }
                #expect(waits.all.count == 2)
                #expect(try await first.pending() == records)

                // The app restarts: a new queue over the same file has them, and delivers them.
                let client = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, credential: child.credential)
                let second = UsageUploadQueue(store: store)
                #expect(try await second.pending() == records)
                let delivery = try await second.flush(with: client, timeZone: "UTC")
                #expect(delivery.accepted == 3)
                #expect(try await second.pending().isEmpty)
                #expect(delivery.summaries.last?.totalLearningSeconds == 900)

                // Sent again (as after a crash between the server's answer and the save): duplicates.
                try await second.enqueue(records)
                let again = try await second.flush(with: client, timeZone: "UTC")
                #expect(again.accepted == 0 && again.duplicates == 3)
            }
        }
    }

    /// A record the server refuses is not retried (it would be refused again): it leaves the queue,
    /// reported with the server's reason, and the records queued with it are delivered.
    @Test func aRefusedRecordLeavesTheQueueAndTheRestIsDelivered() async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                let (_, child) = try await server.pair(by: parent)
                let waits = Waits()
                let queue = UsageUploadQueue(store: FileSyncStateStore(url: URL(fileURLWithPath: directory + "/sync.json")), sleep: waits.sleep)
                let good = [Self.record(server, "a"), Self.record(server, "b")]
                let bad = Self.record(server, "c", points: -1)
                try await queue.enqueue([good[0], bad, good[1]])
                let client = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, credential: child.credential)
                let delivery = try await queue.flush(with: client)
                #expect(delivery.accepted == 2)
                #expect(delivery.rejected.map(\.record) == [bad])
                #expect(delivery.rejected.first?.error.code == .badRequest)
                #expect(delivery.rejected.first?.error.field == "records[1].earnedPoints")
                #expect(waits.all.isEmpty)
                #expect(try await queue.pending().isEmpty)

                // The same recordID with other content is a conflict: rejected, not retried.
                var changed = good[0]
                changed.totalSeconds -= 1
                try await queue.enqueue([changed])
                let conflict = try await queue.flush(with: client)
                #expect(conflict.rejected.map(\.error.code) == [.conflict])
                #expect(try await queue.pending().isEmpty)
            }
        }
    }

    /// The engine and the queue (perhaps in two processes) change one state file at once: every
    /// update is a locked read-change-write, so none is lost.
    @Test func concurrentUpdatesOfOneStateFileLoseNothing() async throws {
        try await withTemporaryDirectory { directory in
            let url = URL(fileURLWithPath: directory + "/sync.json")
            let start = Date(timeIntervalSince1970: 1_795_000_000)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask { try FileSyncStateStore(url: url).update { $0.zoneTokens["zone-\(index)"] = "token" } }
                    group.addTask {
                        try await UsageUploadQueue(store: FileSyncStateStore(url: url)).enqueue([UsageRecordBody(
                            recordID: UUID().uuidString, logicalID: "app-\(index)", displayName: "App", category: "learning",
                            sessionStart: start, sessionEnd: start.addingTimeInterval(60), totalSeconds: 60
                        )])
                    }
                }
                try await group.waitForAll()
            }
            let state = try FileSyncStateStore(url: url).load()
            #expect(state.zoneTokens.count == 40)
            #expect(Set(state.pendingUsage.map(\.logicalID)).count == 40)
        }
    }
}
