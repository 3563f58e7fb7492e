import FamilySyncCore
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import Foundation
import Testing

/// `--trusted-proxies`: whose `X-Forwarded-For` names the client of the per-address limits.
@Suite struct TrustedProxiesTests {
    static let proxies = try! TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8, ::1, fd00::/8")

    @Test(arguments: [
        // An untrusted peer is its own client, whatever it claims.
        ("192.0.2.9", ["203.0.113.7"], "192.0.2.9"),
        ("127.0.0.1", [], "127.0.0.1"),
        ("127.0.0.1", ["203.0.113.7"], "203.0.113.7"),
        // Trusted hops are skipped from the right; the first untrusted one is the client, and
        // what stands left of it (anything the client wrote itself) is not believed.
        ("127.0.0.1", ["203.0.113.7, 10.1.2.3"], "203.0.113.7"),
        ("127.0.0.1", ["198.51.100.1, 203.0.113.7, 10.1.2.3"], "203.0.113.7"),
        ("127.0.0.1", ["198.51.100.1", "203.0.113.7, 10.255.255.255"], "203.0.113.7"),
        // Only trusted hops: the farthest is the client.
        ("127.0.0.1", ["10.0.0.1"], "10.0.0.1"),
        // A hop that is not an address ends the walk at the proxy that wrote it.
        ("127.0.0.1", ["203.0.113.7, junk"], "127.0.0.1"),
        ("127.0.0.1", ["junk, 10.0.0.2"], "10.0.0.2"),
        // IPv6.
        ("::1", ["2001:db8::1"], "2001:db8::1"),
        ("::1", ["2001:db8::1, fd12::3"], "2001:db8::1"),
        // Outside a range by one bit.
        ("127.0.0.1", ["203.0.113.7, 11.0.0.1"], "11.0.0.1"),
    ] as [(String, [String], String)])
    func theClientIsTheFirstUntrustedHopFromTheRight(peer: String, forwarded: [String], client: String) {
        #expect(Self.proxies.client(peer: peer, forwardedFor: forwarded) == client)
    }

    @Test func ranges() throws {
        let proxies = try TrustedProxies(parsing: "192.168.4.0/22,0.0.0.0/0")
        #expect(try TrustedProxies(parsing: "192.168.4.0/22").trusts("192.168.7.255"))
        #expect(!(try TrustedProxies(parsing: "192.168.4.0/22").trusts("192.168.8.0")))
        #expect(proxies.trusts("8.8.8.8"))
        #expect(!proxies.trusts("2001:db8::1"), "an IPv4 range holds no IPv6 address")
        #expect(!proxies.trusts("not an address"))
        #expect(TrustedProxies.none == (try TrustedProxies(parsing: " ")))
    }

    @Test(arguments: ["10.0.0.0/33", "example.com", "10.0.0.1/", "::1/129", "10.0.0.0/-1", "1.2.3.4/8x"])
    func aBadEntryIsRefused(_ list: String) {
        #expect(throws: TrustedProxies.ParseError.self) { try TrustedProxies(parsing: list) }
    }

    /// Over HTTP, one family creation a minute per client: behind a trusted proxy each forwarded
    /// client has its own bucket; from an untrusted peer the header changes nothing.
    @Test(arguments: [true, false])
    func theRateLimitKeysOnTheForwardedClientOnlyBehindATrustedProxy(trusted: Bool) async throws {
        let configuration = ServerConfiguration(
            port: 0, unauthenticatedRateLimit: RateLimit(burst: 1, perMinute: 1),
            trustedProxies: trusted ? try TrustedProxies(parsing: "127.0.0.1") : .none
        )
        try await withTestServer(configuration: configuration) { server in
            func create(from client: String) async throws -> Int {
                try await server.send(
                    .post, "/v1/families", json: #"{"device":{"name":"Phone","platform":"ios","timeZone":"UTC"}}"#, headers: [("X-Forwarded-For", client)]
                ).status.code
            }
            let first = try await create(from: "203.0.113.7")
            let other = try await create(from: "203.0.113.8")
            let again = try await create(from: "203.0.113.7")
            #expect(first == 201)
            #expect(other == (trusted ? 201 : 429))
            #expect(again == 429)
        }
    }
}
