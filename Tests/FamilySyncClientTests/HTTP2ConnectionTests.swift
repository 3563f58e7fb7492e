import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// The SDK over AsyncHTTPClient against a server that speaks HTTP/2 (PROTOCOL §1.3, "HTTPS and
/// HTTP/2"): a device's engine holds its poll and sends its writes on one connection.
@Suite struct HTTP2ConnectionTests {
    @Test func anEnginesHeldPollAndTheAppsWritesShareOneConnection() async throws {
        var configuration = ServerConfiguration.forTests
        configuration.tls = try TestTLS.served()
        try await withTestServer(configuration: configuration) { server in
            try await withTemporaryDirectory { directory in
                let parent = try await server.createFamily()
                let (_, child) = try await server.pair(by: parent)
                let zone = Device.zoneName(forChild: child.deviceID)
                try await server.configure(zone, by: parent, name: "app-1")
                // The connections the setup made, through the tests' own client.
                let before = Set(try await TCPConnections.clientPorts(to: server.port))

                let http = try TestTLS.client()
                let client = FamilySyncClient(serverURL: URL(string: server.baseURL)!, credential: child.credential, httpClient: http)
                let parentClient = FamilySyncClient(serverURL: URL(string: server.baseURL)!, credential: parent.credential, httpClient: http)
                let store = FileSyncStateStore(url: URL(fileURLWithPath: directory + "/sync.json"))
                let engine = SyncEngine(client: client, store: store, pollTimeout: 30, backoff: .init(initial: .milliseconds(50), maximum: .milliseconds(200)))
                let running = Task { await engine.run() }
                var events = engine.events.makeAsyncIterator()
                _ = try #require(await events.next("the engine's first event"))
                let asked = engine.nextEventAsked()
                try await server.waitForHeldPolls(1)

                // While the engine's poll is held: the child's own writes, and a parent's that
                // wakes the poll, all through the same HTTP client.
                _ = try await client.reportHealth(HealthReportRequest(heartbeatAt: server.clock.now(), monitoringActive: true, memoryUsageMB: 4.5, errors: []))
                _ = try await client.me()
                _ = try await parentClient.modify(zone, ModifyRecordsRequest(operations: [
                    .init(operationType: .forceReplace, record: .init(recordName: "app-2", recordType: "AppConfiguration", fields: [
                        "logicalID": .string("app-2"), "displayName": .string("App"), "category": .string("learning"), "isEnabled": .bool(true), "blockingEnabled": .bool(false),
                    ]))
                ]))
                // The child's health record and the parent's configuration arrive by the held poll.
                var event = try #require(await OpenWaits.during("the engine's event after the writes", limit: .seconds(120)) { await asked.value })
                var seen: [String] = []
                while true {
                    guard case .changes(_, let records) = event else { Issue.record("got \(event)"); return }
                    seen += records.map(\.recordName)
                    if seen.contains("app-2") { break }
                    event = try #require(await events.next("the engine's next event"))
                }
                #expect(seen.contains("health"))

                let opened = Set(try await TCPConnections.clientPorts(to: server.port)).subtracting(before)
                #expect(opened.count == 1, "the SDK's connections: \(opened)")
                running.cancel()
                await running.value
                try await http.shutdown()
            }
        }
    }
}
