@testable import FamilySyncApp
import FamilySyncCore
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Testing

/// SIGTERM's path: the server stops accepting, requests in flight finish, then the group ends.
@Suite struct GracefulShutdownTests {
    @Test func aRequestInFlightFinishesAfterShutdownBegins() async throws {
        let url = try await TestPostgres.shared.makeDatabase()
        let pool = try url.servingPool(connections: 4, logger: testLogger)
        var server = ServerConfiguration(host: "127.0.0.1", port: 0)
        if TestPostgres.isShared(url) { server.keepingJobsToTheTest() }
        let (started, requestArrived) = AsyncStream.makeStream(of: Void.self)
        let (listeners, listenerContinuation) = AsyncStream.makeStream(of: (any Channel).self)
        let dependencies = ServerDependencies(pool: pool, listener: try url.connectionConfiguration(), metricsRegistry: testMetricsRegistry, logger: testLogger)
        let app = buildApplication(configuration: server, dependencies: dependencies) { channel in
            listenerContinuation.yield(channel)
        } routes: { router in
            router.get("/test/slow") { _, _ -> String in
                requestArrived.yield()
                try await Task.sleep(for: .milliseconds(500))
                return "finished"
            }
        }
        let group = ServiceGroup(configuration: .init(services: [app], logger: testLogger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var listenerIterator = listeners.makeAsyncIterator()
            let listener = try #require(await listenerIterator.next())
            let port = try #require(listener.localAddress?.port)
            let response = Task {
                try await rawExchange(port: port, request: "GET /test/slow HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            }
            var arrivals = started.makeAsyncIterator()
            _ = await arrivals.next()
            await group.triggerGracefulShutdown()
            let answer = try await response.value
            #expect(answer.hasPrefix("HTTP/1.1 200"), "answer: \(answer)")
            #expect(answer.hasSuffix("finished"))
            try await tasks.next()  // the group ends once the request is done
            // And it no longer accepts connections: its listening socket is closed. (Not checked by
            // connecting to its port: in a full run another test's server may listen there by then.)
            #expect(!listener.isActive)
        }
    }
}
