import AsyncHTTPClient
import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import NIOPosix
import Synchronization
import Testing

/// `serve` over TLS (PROTOCOL §1.3, "HTTPS and HTTP/2"): HTTP/2 and HTTP/1.1 by ALPN on one port,
/// every route and the pipeline's own handlers as over plain HTTP, a device's requests on one
/// connection.
@Suite struct HTTPSServingTests {
    static func secure(_ change: (inout ServerConfiguration) -> Void = { _ in }) throws -> ServerConfiguration {
        var configuration = ServerConfiguration.forTests
        configuration.tls = try TestTLS.served()
        change(&configuration)
        return configuration
    }

    /// The access matrix's parent column, every route of the API, over HTTP/2: the same statuses,
    /// the same leak checks, the export's archive streamed.
    @Test func everyRouteAnswersOverHTTP2AsTheAccessMatrixSays() async throws {
        try await withTestServer(configuration: try Self.secure()) { server in
            for cell in AccessMatrixTests.cells where cell.caller == .parent {
                try await AccessMatrixTests.check(cell, on: server)
            }
        }
    }

    /// A client offering HTTP/2 gets it; one offering only HTTP/1.1 gets that; both are told to
    /// come back over HTTPS only. A plain server says nothing of it.
    @Test func bothVersionsByALPNAndStrictTransportSecurity() async throws {
        try await withTestServer(configuration: try Self.secure()) { server in
            let http1 = try TestTLS.client(http1Only: true)
            for (client, major) in [(TestTLS.https, 2), (http1, 1)] {
                let response = try await client.execute(HTTPClientRequest(url: server.baseURL + "/health/ready"), timeout: .seconds(30))
                #expect(response.status == .ok)
                #expect(response.version.major == major)
                #expect(response.headers["Strict-Transport-Security"] == ["max-age=31536000"])
                _ = try await response.body.collect(upTo: 1 << 16)
            }
            try await http1.shutdown()
        }
        try await withTestServer { server in
            let reply = try await server.send(.get, "/health/ready")
            #expect(reply.status == .ok)
            #expect(reply.headers[HTTPField.Name("Strict-Transport-Security")!] == nil)
        }
    }

    /// A parent's held poll and the write that wakes it go on one HTTP/2 connection, as do the
    /// reads around them: a held poll is one stream, not a connection.
    @Test func aHeldPollAndTheWriteThatWakesItShareOneConnection() async throws {
        try await withTestServer(configuration: try Self.secure()) { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = "child-\(child.deviceID.lowercased)"
            let token = try await server.databaseToken(parent)
            let first = try await server.holdPoll(parent, since: token)
            let second = try await server.holdPoll(child, held: 2)
            try await server.configure(zone, by: parent)
            let woken = try await OpenWaits.during("the parent's held poll, woken by the write", limit: .seconds(90)) { try await first.value }
            #expect(woken.status == .ok)
            #expect(try woken.decode(PollResponse.self).changed)
            #expect(try await OpenWaits.during("the child's held poll, woken by the write", limit: .seconds(90)) { try await second.value }.status == .ok)
            let open = try await TCPConnections.sockets(onPort: server.port, states: "established")
            #expect(open.count == 1, "\(open)")
        }
    }

    /// A body over the limit is refused on its own stream (413, §1.1's body); the connection
    /// goes on carrying the device's next request.
    @Test func aBodyOverTheLimitIsRefusedOnItsStream() async throws {
        try await withTestServer(configuration: try Self.secure { $0.limits = Limits(maxBodyBytes: 4096) }) { server in
            let parent = try await server.createFamily()
            let big = #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"n","recordType":"x-note","fields":{"text":""# + String(repeating: "a", count: 8192) + #""}}}]}"#
            let refused = try await server.send(.post, "/v1/zones/shared/records/modify", credential: parent.credential, json: big)
            #expect(refused.status == .contentTooLarge)
            #expect(refused.errorCode == "LIMIT_EXCEEDED")
            #expect(try await server.send(.get, "/v1/devices/me", credential: parent.credential).status == .ok)
            let open = try await TCPConnections.sockets(onPort: server.port, states: "established")
            #expect(open.count == 1, "\(open)")
        }
    }

    /// An HTTP/2 connection with no stream open is closed after the idle timeout, as an idle
    /// HTTP/1.1 keep-alive is.
    @Test func anIdleConnectionIsClosed() async throws {
        try await withTestServer(configuration: try Self.secure { $0.idleTimeout = .seconds(1) }) { server in
            #expect(try await server.send(.get, "/health/live").status == .ok)
            let open = try await TCPConnections.sockets(onPort: server.port, states: "established")
            #expect(open.count == 1, "\(open)")
            try await TCPConnections.waitUntil(toPort: server.port, count: 0, within: .seconds(30))
            #expect(try await server.send(.get, "/health/live").status == .ok)
        }
    }

    /// A client that closes its HTTP/2 connection is let go at once: the server's end is not left
    /// half open (which a shutdown would then wait for).
    @Test func aConnectionItsClientClosedIsClosed() async throws {
        try await withTestServer(configuration: try Self.secure()) { server in
            let client = try TestTLS.client()
            let response = try await client.execute(HTTPClientRequest(url: server.baseURL + "/health/live"), timeout: .seconds(30))
            #expect(response.version.major == 2)
            _ = try await response.body.collect(upTo: 1 << 16)
            #expect(try await TCPConnections.serverSide(ofPort: server.port) == 1)
            try await client.shutdown()
            let deadline = ContinuousClock.now + .seconds(30)
            while try await TCPConnections.serverSide(ofPort: server.port) != 0 {
                guard ContinuousClock.now < deadline else { throw TestFailure("the server's end of a closed connection stayed open") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// A connection whose stream outlasts the idle timeout is not closed under it: the idle
    /// timeout counts only while no stream is open.
    @Test func aStreamLongerThanTheIdleTimeoutKeepsItsConnection() async throws {
        try await withTestServer(configuration: try Self.secure { $0.idleTimeout = .seconds(1) }) { server in
            let parent = try await server.createFamily()
            let token = try await server.databaseToken(parent)
            let client = try TestTLS.client()
            do {
                var request = HTTPClientRequest(url: server.baseURL + "/v1/poll?timeout=3&since=\(token)")
                request.headers.add(name: "Authorization", value: "Bearer \(parent.credential)")
                let response = try await client.execute(request, timeout: .seconds(60))
                #expect(response.status == .ok)
                #expect(response.version.major == 2)
                _ = try await response.body.collect(upTo: 1 << 16)
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    /// A client that connects and never finishes its handshake, and one that finishes it and
    /// never opens a stream, are closed after the idle timeout.
    @Test func aConnectionThatNeverStartsARequestIsClosed() async throws {
        try await withTestServer(configuration: try Self.secure { $0.idleTimeout = .seconds(1) }) { server in
            try await Self.withSilentClient(port: server.port) {
                try await RawHTTP2Connection.with(port: server.port) { _ in
                    #expect(try await TCPConnections.serverSide(ofPort: server.port) == 2)
                    try await TCPConnections.waitUntil(toPort: server.port, count: 0, within: .seconds(30))
                }
            }
        }
    }

    /// A shutdown does not wait for a client that never answers: one still in its handshake is
    /// closed at once, an HTTP/2 one that never acknowledges the shutdown's PING after the grace.
    /// (A shutdown that waited for them would hang this test: the test server's shutdown is a
    /// named wait, which the suite's watchdog reports.) Both find their connection closed by the server.
    @Test func aShutdownDoesNotWaitForAClientThatNeverAnswers() async throws {
        let left = Mutex<[SilentClient]>([])
        do {
            try await withTestServer(configuration: try Self.secure()) { server in
                let silent = try await SilentClient.tcp(port: server.port)
                left.withLock { $0.append(silent) }
                let unanswering = try await SilentClient.http2(port: server.port)
                left.withLock { $0.append(unanswering) }
                #expect(try await TCPConnections.serverSide(ofPort: server.port) == 2)
            }
            for client in left.withLock({ $0 }) {
                try await OpenWaits.during("a silent client's connection, closed by the server's shutdown", limit: .seconds(30)) { try await client.closedByServer() }
            }
        } catch {
            for client in left.withLock({ $0 }) { await client.close() }
            throw error
        }
        for client in left.withLock({ $0 }) { await client.close() }
    }

    /// `body` with a TCP connection to `port` that sends nothing, closed after it.
    static func withSilentClient(port: Int, _ body: () async throws -> Void) async throws {
        let silent = try await SilentClient.tcp(port: port)
        do {
            try await body()
        } catch {
            await silent.close()
            throw error
        }
        await silent.close()
    }

    /// A client that says nothing after connecting: a TCP connection with no handshake, or an
    /// HTTP/2 one that stops reading once it has started.
    enum SilentClient: Sendable {
        case tcp(NIOAsyncChannel<ByteBuffer, ByteBuffer>)
        case http2(RawHTTP2Connection)

        static func tcp(port: Int) async throws -> SilentClient {
            .tcp(try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            })
        }

        static func http2(port: Int) async throws -> SilentClient {
            .http2(try await RawHTTP2Connection.open(port: port))
        }

        /// Returns once the server has closed the connection.
        func closedByServer() async throws {
            switch self {
            case .tcp(let channel): try await channel.channel.closeFuture.get()
            case .http2(let connection): try await connection.closed()
            }
        }

        func close() async {
            switch self {
            case .tcp(let channel):
                channel.outbound.finish()
                try? await channel.channel.close()
            case .http2(let connection):
                await connection.close()
            }
        }
    }

    /// A dashboard's live poll sets `Connection: close` for HTTP/1.1; over HTTP/2 the field is
    /// dropped and the answer arrives.
    @Test func connectionFieldsAreDroppedFromAStreamsHead() throws {
        let channel = EmbeddedChannel(handler: ConnectionFieldsDropped())
        var head = HTTPResponse(status: .ok)
        head.headerFields[.connection] = "close"
        head.headerFields[.contentType] = "application/json"
        try channel.writeOutbound(HTTPResponsePart.head(head))
        guard case .head(let written) = try channel.readOutbound(as: HTTPResponsePart.self) else { Issue.record("no head"); return }
        #expect(written.headerFields[.connection] == nil)
        #expect(written.headerFields[.contentType] == "application/json")
    }
}
