import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Connections with nothing in flight are closed after the idle timeout; a request being answered
/// (a held poll) is not idle, however long it is held.
@Suite struct IdleConnectionTests {
    static let configuration = ServerConfiguration(
        port: 0, unauthenticatedRateLimit: RateLimit(burst: 100_000, perMinute: 100_000), idleTimeout: .seconds(1)
    )

    @Test func aClientThatNeverFinishesItsHeadersIsDisconnected() async throws {
        try await withTestServer(configuration: Self.configuration) { server in
            let descriptor = try openExchange(port: server.port, request: "GET /health/live HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
            defer { close(descriptor) }
            // A hang detector, not a measure: the server closes it after one second.
            var limit = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            let received = try await offCooperativePool {
                var byte: UInt8 = 0
                return recv(descriptor, &byte, 1, 0)
            }
            #expect(received == 0, "the connection was not closed (recv: \(received))")
        }
    }

    @Test func aHeldPollOutlastsTheIdleTimeout() async throws {
        try await withTestServer(configuration: Self.configuration) { server in
            let parent = try await server.createFamily()
            let reply = try await server.send(.get, "/v1/poll?timeout=3", credential: parent.credential)
            #expect(reply.status == .ok)
            #expect(try reply.decode(PollResponse.self).changed == false)
        }
    }
}
