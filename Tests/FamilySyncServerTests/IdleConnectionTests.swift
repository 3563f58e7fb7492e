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
/// (a held poll) is not idle, however long it is held; a body sent a byte now and then is answered
/// 408 and closed (§1.3), with a credential or without.
@Suite struct IdleConnectionTests {
    static let configuration = ServerConfiguration(
        port: 0, unauthenticatedRateLimit: RateLimit(burst: 100_000, perMinute: 100_000), idleTimeout: .seconds(1)
    )
    /// The pace's grace well inside the idle timeout, which closes a stalled connection without an
    /// answer: a byte now and then keeps it from ever doing so.
    static let paced = {
        var configuration = ServerConfiguration(
            port: 0, unauthenticatedRateLimit: RateLimit(burst: 100_000, perMinute: 100_000), idleTimeout: .seconds(60)
        )
        configuration.bodyPace = BodyPace(grace: .seconds(1), bytesPerSecond: 1024)
        return configuration
    }()

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

    @Test(arguments: ["/v1/families", "/v1/zones/{zone}/records/query"])
    func aBodySentAByteNowAndThenIsAnswered408AndClosed(path: String) async throws {
        try await withTestServer(configuration: Self.paced) { server in
            let parent = try await server.createFamily()
            let child = try await server.pair(by: parent).device
            let zone = try #require(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).zoneName)
            let target = path.replacingOccurrences(of: "{zone}", with: zone)
            let authorization = path.contains("{zone}") ? "Authorization: Bearer \(parent.credential)\r\n" : ""
            let descriptor = try openExchange(
                port: server.port,
                request: "POST \(target) HTTP/1.1\r\nHost: localhost\r\n\(authorization)Content-Type: application/json\r\nContent-Length: 4000000\r\n\r\n{"
            )
            defer { close(descriptor) }
            // Nothing more is sent: only the pace closes it (after about a second, the idle
            // timeout after a minute, without an answer). The bound is a hang detector.
            var limit = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            let answer = try await offCooperativePool { () -> (String, Int) in
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count <= 0 { return (String(decoding: received, as: UTF8.self), count) }
                    received += buffer[0..<count]
                }
            }
            #expect(answer.1 == 0, "the connection was not closed (recv: \(answer.1))")
            #expect(answer.0.hasPrefix("HTTP/1.1 408"), "\(answer.0)")
            #expect(answer.0.contains(#""code":"REQUEST_TIMEOUT""#), "\(answer.0)")
        }
    }
}
