import AsyncHTTPClient
import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Testing

/// A renewed certificate is served to new connections without a restart, while connections
/// already open (a held poll on one) go on; a pair that cannot be served is refused and the last
/// good one kept.
@Suite struct CertificateReloadTests {
    struct Client {
        let http: HTTPClient
        let base: String

        func send(_ method: HTTPMethod, _ path: String, credential: String? = nil, json: String? = nil) async throws -> (Int, ByteBuffer) {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            if let credential { request.headers.add(name: "Authorization", value: "Bearer \(credential)") }
            if let json {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: json))
            }
            let response = try await http.execute(request, timeout: .seconds(90))
            return (Int(response.status.code), try await response.body.collect(upTo: 1 << 20))
        }

        /// Whether a new connection's handshake succeeds.
        func connects() async -> Bool {
            (try? await send(.GET, "/health/live").0) == 200
        }
    }

    @Test func aRenewedPairIsServedToNewConnectionsAndOpenOnesGoOn() async throws {
        let files = try TestTLS.makeFiles()
        let served = try TestTLS.served(files)
        var configuration = ServerConfiguration.forTests
        configuration.tls = served
        try await withTestServer(configuration: configuration) { server in
            let first = Client(http: try TestTLS.client(trusting: files.certificatePEM), base: server.baseURL)
            let (status, body) = try await first.send(.POST, "/v1/families", json: #"{"device":{"name":"Mom's iPhone","platform":"ios","timeZone":"UTC"}}"#)
            #expect(status == 201)
            let parent = try WireCoding.makeDecoder().decode(CreateFamilyResponse.self, from: Data(body.readableBytesView))
            // A held poll on the connection that began with the first pair.
            let token = try WireCoding.makeDecoder().decode(PollResponse.self, from: Data(try await first.send(.GET, "/v1/poll?timeout=0", credential: parent.credential).1.readableBytesView)).changeToken
            let held = Task { try await first.send(.GET, "/v1/poll?timeout=60&since=\(token)", credential: parent.credential) }
            try await server.waitForHeldPolls(1)

            let renewed = try files.renew()
            #expect(served.reloadIfChanged() == .served)
            let second = Client(http: try TestTLS.client(trusting: renewed.certificatePEM), base: server.baseURL)
            let stale = Client(http: try TestTLS.client(trusting: files.certificatePEM), base: server.baseURL)
            #expect(await second.connects(), "a new connection is served the renewed pair")
            #expect(!(await stale.connects()), "a new connection is no longer served the first pair")

            // The open connection is not dropped: its poll is woken by a write and answered on it,
            // and its next request goes on it.
            #expect(try await second.send(.POST, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"notes"}"#).0 == 201)
            let write = try await second.send(.POST, "/v1/zones/notes/records/modify", credential: parent.credential, json: TestServer.write("notes", "note"))
            #expect(write.0 == 200)
            let (woken, answer) = try await held.value
            #expect(woken == 200)
            #expect(try WireCoding.makeDecoder().decode(PollResponse.self, from: Data(answer.readableBytesView)).changed)
            #expect(try await first.send(.GET, "/v1/devices/me", credential: parent.credential).0 == 200)

            // A key that is not the certificate's: refused, and the renewed pair kept.
            let other = try TestTLS.makeFiles()
            try Data(contentsOf: URL(fileURLWithPath: other.keyFile)).write(to: URL(fileURLWithPath: files.keyFile))
            guard case .refused(let reason) = served.reloadIfChanged() else { Issue.record("a mismatched key was served"); return }
            #expect(reason.contains("is not the key of the certificate"))
            #expect(served.reloadIfChanged() == .unchanged, "a refused pair is not read again until it changes")
            let third = Client(http: try TestTLS.client(trusting: renewed.certificatePEM), base: server.baseURL)
            #expect(await third.connects())
            for client in [first, second, stale, third] { try await client.http.shutdown() }
        }
    }

    /// The server's own timer finds the renewal: no call, no signal.
    @Test func theServerFindsARenewalOnItsOwn() async throws {
        let files = try TestTLS.makeFiles()
        var configuration = ServerConfiguration.forTests
        configuration.tls = try TestTLS.served(files, checkEvery: .milliseconds(100))
        try await withTestServer(configuration: configuration) { server in
            let renewed = try files.renew()
            let client = Client(http: try TestTLS.client(trusting: renewed.certificatePEM), base: server.baseURL)
            let deadline = ContinuousClock.now + .seconds(30)
            while !(await client.connects()) {
                guard ContinuousClock.now < deadline else { throw TestFailure("the renewed pair was not served within 30 s") }
                try await Task.sleep(for: .milliseconds(100))
            }
            try await client.http.shutdown()
        }
    }
}
