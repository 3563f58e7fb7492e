import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// A tracked device's engine carries its heartbeat on the polls it holds (`POST /v1/poll`, PROTOCOL
/// §6 and §10): the server has the heartbeat and the queued errors without a request of their own,
/// and an error the server refuses is dropped without holding back the poll or the rest.
@Suite struct PollHeartbeatSDKTests {
    @Test(arguments: TestTransport.allCases)
    func theEnginesPollsCarryTheHeartbeatAndItsErrors(_ via: TestTransport) async throws {
        try await withTestServer { server in
            try await withTemporaryDirectory { directory in
                let (parent, child, _, _, store) = try await SyncEngineTests.setUp(server, directory)
                let parentClient = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, credential: parent.credential, transport: via.transport)
                let childClient = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, credential: child.credential, transport: via.transport)
                let reporter = HealthReporter(store: store)
                func error(_ action: String) -> ExtensionErrorBody {
                    ExtensionErrorBody(id: UUID(), timestamp: server.clock.now(), eventName: "intervalDidStart", action: action, success: false, errorDescription: "failed")
                }
                try await reporter.record(error("record_usage"))
                try await reporter.record(error("explode"))
                #expect(try await parentClient.health(of: child.deviceID).status == "unknown")

                let heartbeat = PollHeartbeat(reporter: reporter, now: { server.clock.now() }) { MonitoringStatus(monitoringActive: true, memoryUsageMB: 4.5, notificationSequence: 1) }
                let engine = SyncEngine(client: childClient, store: store, pollTimeout: 1, heartbeat: heartbeat)
                let draining = Task { for await _ in engine.events {} }
                let running = Task { await engine.run() }
                defer {
                    running.cancel()
                    draining.cancel()
                }
                try await Self.until("the poll's heartbeat reaches the server with the error it keeps") {
                    let health = try await parentClient.health(of: child.deviceID)
                    return health.status == "healthy" && health.errorsToday == 1
                }
                try await Self.until("the refused error leaves the queue") { try await reporter.pending().isEmpty }
                let health = try await parentClient.health(of: child.deviceID)
                #expect(health.memoryUsageMB == 4.5 && health.lastErrors.map(\.action) == ["record_usage"])
                // An engine runs until cancelled (as an app's task is); its events end with it.
                running.cancel()
                await running.value
            }
        }
    }

    /// Waits until `condition` holds, failing after 60 s (a busy machine's margin; nothing here is timed).
    static func until(_ what: String, _ condition: @Sendable () async throws -> Bool) async throws {
        try await OpenWaits.during(what, limit: .seconds(90)) {
            let deadline = ContinuousClock.now + .seconds(60)
            while try await !condition() {
                guard ContinuousClock.now < deadline else { throw TestFailure("never: \(what)") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}

