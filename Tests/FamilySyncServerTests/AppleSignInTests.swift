import _CryptoExtras
import Crypto
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import Synchronization
import Testing

/// PROTOCOL §13, Sign in with Apple: tokens are verified against a JWKS the test serves from
/// keys it makes, and every bad token is refused without a change.
@Suite struct AppleSignInTests {
    static let clientID = "org.familysync.app"
    static let signing = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    /// A key the JWKS does not publish (at first).
    static let other = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    /// The JWKS endpoint: the keys it publishes can change, and it counts its fetches.
    final class KeyServer: Sendable {
        let published = Mutex<[(kid: String, key: _RSA.Signing.PublicKey)]>([])
        let fetches = Atomic<Int>(0)

        var json: String {
            let keys = published.withLock { $0 }.map { entry in
                let primitives = try! entry.key.getKeyPrimitives()
                return #"{"kty":"RSA","kid":"\#(entry.kid)","use":"sig","alg":"RS256","n":"\#(primitives.modulus.base64URL)","e":"\#(primitives.publicExponent.base64URL)"}"#
            }
            return #"{"keys":[\#(keys.joined(separator: ","))]}"#
        }
    }

    /// A test server configured for Sign in with Apple against a JWKS served beside it.
    static func withAppleServer(_ body: @Sendable (TestServer, KeyServer) async throws -> Void) async throws {
        let keys = KeyServer()
        keys.published.withLock { $0 = [("k1", signing.publicKey)] }
        let router = Router()
        router.get("keys") { _, _ -> Response in
            keys.fetches.add(1, ordering: .relaxed)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: keys.json)))
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let configuration = ServerConfiguration(
                port: 0, unauthenticatedRateLimit: RateLimit(burst: 100_000, perMinute: 100_000),
                appleJWKSURL: "http://127.0.0.1:\(client.port!)/keys", appleClientIDs: ["other.app", clientID]
            )
            try await withTestServer(configuration: configuration, isolation: .database) { server in try await body(server, keys) }
        }
    }

    static func hashedNonce(_ nonce: String) -> String {
        SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A token as Apple signs it, every claim right unless changed.
    static func token(
        key: _RSA.Signing.PrivateKey = signing, kid: String = "k1", subject: String = "001234.apple.user", issuer: String = "https://appleid.apple.com",
        audience: String = clientID, expires: Date = Date().addingTimeInterval(300), nonce: String = "raw-nonce"
    ) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(backing: key), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        let payload = AppleIdentityToken(
            issuer: .init(value: issuer), audience: .init(value: [audience]), expires: .init(value: expires), issuedAt: .init(value: Date()),
            subject: .init(value: subject), nonce: hashedNonce(nonce)
        )
        return try await keys.sign(payload, kid: JWKIdentifier(string: kid))
    }

    static func link(_ server: TestServer, _ parent: TestDevice, token: String, nonce: String = "raw-nonce") async throws -> TestServer.Reply {
        try await server.send(.post, "/v1/account/apple", credential: parent.credential, body: LinkAppleAccountRequest(identityToken: token, nonce: nonce))
    }

    @Test func aLinkedAppleAccountRecoversTheFamily() async throws {
        try await Self.withAppleServer { server, _ in
            let parent = try await server.createFamily()
            let linked = try await Self.link(server, parent, token: try await Self.token())
            #expect(linked.status == .noContent, "\(String(buffer: linked.body))")
            let reply = try await server.send(.post, "/v1/families/recover", body: RecoverFamilyRequest(
                appleIdentityToken: try await Self.token(nonce: "second"), nonce: "second", device: .init(name: "New phone", platform: .ios, timeZone: "UTC")
            ))
            #expect(reply.status == .created, "\(String(buffer: reply.body))")
            let recovered = try reply.decode(CreateFamilyResponse.self)
            #expect(recovered.family.id == parent.familyID)
            #expect(recovered.device.memberId == (try await server.memberID(of: parent)))
            // An account linked to no family: 404, as a wrong code.
            let stranger = try await server.send(.post, "/v1/families/recover", body: RecoverFamilyRequest(
                appleIdentityToken: try await Self.token(subject: "someone.else"), nonce: "raw-nonce", device: .init(name: "P", platform: .ios, timeZone: "UTC")
            ))
            #expect(stranger.status == .notFound)
        }
    }

    /// The lookup rows (schema 0012) leave with their family: a deleted family's Apple account
    /// links to a new family, and neither it nor the old recovery code finds the deleted one.
    @Test func aDeletedFamilyLeavesNoLookupBehind() async throws {
        try await Self.withAppleServer { server, _ in
            let parent = try await server.createFamily()
            #expect(try await Self.link(server, parent, token: try await Self.token()).status == .noContent)
            let other = try await server.createFamily()
            #expect(try await Self.link(server, other, token: try await Self.token()).status == .conflict, "linked to the first family")
            #expect(try await server.send(.delete, "/v1/families/me", credential: parent.credential).status == .noContent)
            let recovered = try await server.send(.post, "/v1/families/recover", body: RecoverFamilyRequest(
                appleIdentityToken: try await Self.token(), nonce: "raw-nonce", device: .init(name: "P", platform: .ios, timeZone: "UTC")
            ))
            #expect(recovered.status == .notFound)
            #expect(try await Self.link(server, other, token: try await Self.token()).status == .noContent, "free again")
            let codes = try await server.postgres.query("SELECT count(*)::int FROM recovery_codes WHERE family_id = \(parent.familyID)", logger: testLogger)
            #expect(try await codes.decode(Int.self).first { _ in true } == 0)
        }
    }

    struct BadToken: Sendable, CustomStringConvertible {
        var description: String
        var make: @Sendable () async throws -> String
        var nonce = "raw-nonce"
    }

    static func base64URL(_ text: String) -> String { Data(text.utf8).base64URL }

    static let badTokens: [BadToken] = [
        BadToken(description: "a wrong signature (another key, the published kid)") { try await token(key: other) },
        BadToken(description: "an unknown kid") { try await token(key: other, kid: "k9") },
        BadToken(description: "another audience") { try await token(audience: "com.evil.app") },
        BadToken(description: "another issuer") { try await token(issuer: "https://evil.example.com") },
        BadToken(description: "expired") { try await token(expires: Date().addingTimeInterval(-60)) },
        BadToken(description: "a wrong nonce", make: { try await token() }, nonce: "another-nonce"),
        BadToken(description: "alg none") {
            let good = try await token().split(separator: ".")
            return base64URL(#"{"alg":"none","kid":"k1","typ":"JWT"}"#) + "." + good[1] + "."
        },
        BadToken(description: "HS256 with the public key as the HMAC secret") {
            let keys = JWTKeyCollection()
            await keys.add(hmac: HMACKey(from: signing.publicKey.pemRepresentation), digestAlgorithm: .sha256, kid: "k1")
            return try await keys.sign(AppleIdentityToken(
                issuer: .init(value: "https://appleid.apple.com"), audience: .init(value: [clientID]), expires: .init(value: Date().addingTimeInterval(300)),
                issuedAt: .init(value: Date()), subject: .init(value: "001234.apple.user"), nonce: hashedNonce("raw-nonce")
            ), kid: "k1")
        },
        BadToken(description: "not a JWT") { "not.a.token" },
    ]

    @Test(arguments: badTokens)
    func aBadTokenIsRefusedAndChangesNothing(_ bad: BadToken) async throws {
        try await Self.withAppleServer { server, _ in
            let parent = try await server.createFamily()
            let before = try await server.fingerprint()
            let reply = try await Self.link(server, parent, token: try await bad.make(), nonce: bad.nonce)
            #expect(reply.status == .badRequest && reply.error?.field == "identityToken", "\(String(buffer: reply.body))")
            let recover = try await server.send(.post, "/v1/families/recover", body: RecoverFamilyRequest(
                appleIdentityToken: try await bad.make(), nonce: bad.nonce, device: .init(name: "P", platform: .ios, timeZone: "UTC")
            ))
            #expect(recover.status == .badRequest && recover.error?.field == "appleIdentityToken", "\(String(buffer: recover.body))")
            #expect(try await server.fingerprint() == before)
        }
    }

    /// Apple rotates its keys: a token naming an unknown kid makes the server fetch the keys again,
    /// but at most once a minute.
    @Test func anUnknownKidRefetchesTheKeysAtMostOnceAMinute() async throws {
        try await Self.withAppleServer { server, keys in
            let parent = try await server.createFamily()
            #expect(try await Self.link(server, parent, token: try await Self.token()).status == .noContent)
            #expect(keys.fetches.load(ordering: .relaxed) == 1)
            keys.published.withLock { $0.append(("k2", Self.other.publicKey)) }
            let rotated = try await Self.token(key: Self.other, kid: "k2")
            // Within the minute of the last fetch: not fetched again, and refused.
            #expect(try await Self.link(server, parent, token: rotated).status == .badRequest)
            #expect(try await Self.link(server, parent, token: try await Self.token(key: Self.other, kid: "k7")).status == .badRequest)
            #expect(keys.fetches.load(ordering: .relaxed) == 1)
            server.clock.advance(by: 61)
            #expect(try await Self.link(server, parent, token: rotated).status == .noContent)
            #expect(keys.fetches.load(ordering: .relaxed) == 2)
        }
    }
}

extension Data {
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
