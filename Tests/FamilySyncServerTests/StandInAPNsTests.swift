import AsyncHTTPClient
import Crypto
import FamilySyncServerTestSupport
import StandInAPNs
import FamilySyncTestSupport
import Foundation
import JWTKit
import NIOCore
import NIOSSL
import Testing

/// The stand-in APNs the push sender's tests run against: it must answer as Apple does over
/// HTTP/2, refuse what Apple refuses, and play scripted answers back in order.
@Suite struct StandInAPNsTests {
    static let teamID = "TEAM123456"
    static let keyID = "KEY7654321"
    static let topic = "org.familysync.app"
    static let deviceToken = String(repeating: "0a1b", count: 16)
    static let signingKey = P256.Signing.PrivateKey()

    struct ProviderClaims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// A provider token as a sender makes one; `iat` in whole seconds, as APNs expects.
    static func providerToken(key: P256.Signing.PrivateKey = signingKey, issuedAt: Date = Date()) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: keyID))
        let claims = ProviderClaims(iss: .init(value: teamID), iat: .init(value: Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))))
        return try await keys.sign(claims, kid: JWKIdentifier(string: keyID))
    }

    /// A stand-in and a client that trusts only its certificate, both shut down however the body ends.
    static func withAPNs(_ body: (StandInAPNs, HTTPClient) async throws -> Void) async throws {
        let apns = try await StandInAPNs.start(teamID: teamID, keyID: keyID, publicKey: signingKey.publicKey, topic: topic)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(apns.certificatePEM.utf8), format: .pem)])
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await body(apns, client)
        } catch {
            try? await client.shutdown()
            try? await apns.shutdown()
            throw error
        }
        try await client.shutdown()
        try await apns.shutdown()
    }

    struct Reply {
        var status: Int
        var isHTTP2: Bool
        var apnsID: String?
        var json: [String: String]
        var reason: String? { json["reason"] }
    }

    /// A background push with every header right; `headers` replaces or (with nil) drops some.
    static func push(
        _ client: HTTPClient, _ apns: StandInAPNs, method: String = "POST", path: String? = nil, jwt: String,
        headers changes: [String: String?] = [:], body: String = #"{"aps":{"content-available":1}}"#
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: apns.baseURL + (path ?? "/3/device/\(deviceToken)"))
        request.method = .init(rawValue: method)
        var headers: [String: String?] = [
            "authorization": "bearer \(jwt)", "apns-topic": topic, "apns-push-type": "background", "apns-priority": "5",
            "apns-expiration": "0", "apns-id": UUID().uuidString.lowercased(),
        ]
        headers.merge(changes) { $1 }
        for case let (name, value?) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        // A bound against a hang, as long as `TestServer.send`'s: in a full stressed run (thirteen
        // of these cases at once, each with its own TLS server, beside the rest of the suite) one
        // exchange took longer than the 10 s it had.
        let response = try await client.execute(request, timeout: .seconds(90))
        let bytes = try await response.body.collect(upTo: 1 << 16)
        // Every value as a string: the reason, and the 410's timestamp.
        let object = bytes.readableBytes == 0 ? [:] : (try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any] ?? [:])
        return Reply(
            status: Int(response.status.code), isHTTP2: response.version == .http2, apnsID: response.headers.first(name: "apns-id"),
            json: object.mapValues { "\($0)" }
        )
    }

    @Test func aCorrectPushIsAcceptedOverHTTP2AndRecorded() async throws {
        try await Self.withAPNs { apns, client in
            let issuedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let jwt = try await Self.providerToken(issuedAt: issuedAt)
            let messageID = UUID().uuidString.lowercased()
            let reply = try await Self.push(client, apns, jwt: jwt, headers: ["apns-id": messageID])

            #expect(reply.status == 200)
            #expect(reply.isHTTP2)
            #expect(reply.apnsID == messageID)
            #expect(reply.json.isEmpty)
            let deliveries = try await apns.waitForDeliveries(count: 1)
            #expect(deliveries.count == 1)
            let delivery = try #require(deliveries.first)
            #expect(delivery.token == Self.deviceToken)
            #expect(delivery.status == 200 && delivery.reason == nil)
            #expect(delivery.headers["apns-topic"] == Self.topic)
            #expect(delivery.headers["apns-push-type"] == "background")
            #expect(delivery.headers["apns-priority"] == "5")
            #expect(delivery.headers["apns-id"] == messageID)
            #expect(delivery.jwt == jwt)
            #expect(delivery.issuedAt == issuedAt)
            #expect(delivery.payload?["aps"]?["content-available"] == .number(1))
            #expect(apns.rejections.isEmpty)
        }
    }

    @Test func scriptedAnswersComeBackInOrderThenOK() async throws {
        try await Self.withAPNs { apns, client in
            let jwt = try await Self.providerToken()
            apns.answer(Self.deviceToken, with: [.unregistered, .tooManyRequests, .badDeviceToken])

            let unregistered = try await Self.push(client, apns, jwt: jwt)
            #expect(unregistered.status == 410 && unregistered.reason == "Unregistered")
            #expect(unregistered.json["timestamp"].flatMap(Int.init) != nil)
            let tooMany = try await Self.push(client, apns, jwt: jwt)
            #expect(tooMany.status == 429 && tooMany.reason == "TooManyRequests")
            // Another device's token has no script: the answers stay with the token they were for.
            let other = try await Self.push(client, apns, path: "/3/device/" + String(repeating: "f", count: 64), jwt: jwt)
            #expect(other.status == 200)
            let badToken = try await Self.push(client, apns, jwt: jwt)
            #expect(badToken.status == 400 && badToken.reason == "BadDeviceToken")
            let ok = try await Self.push(client, apns, jwt: jwt)
            #expect(ok.status == 200)

            let mine = try await apns.waitForDeliveries(to: Self.deviceToken, count: 4)
            #expect(mine.map(\.status) == [410, 429, 400, 200])
            #expect(apns.rejections.isEmpty)
        }
    }

    @Test func aTokenSignedByAnotherKeyIsRefused() async throws {
        try await Self.withAPNs { apns, client in
            let forged = try await Self.providerToken(key: P256.Signing.PrivateKey())
            let reply = try await Self.push(client, apns, jwt: forged)

            #expect(reply.status == 403 && reply.reason == "InvalidProviderToken")
            let rejection = try #require(apns.rejections.first)
            #expect(apns.rejections.count == 1)
            #expect(rejection.jwt == forged && rejection.status == 403 && rejection.reason == "InvalidProviderToken")
        }
    }

    @Test func aWrongTopicIsRefused() async throws {
        try await Self.withAPNs { apns, client in
            let reply = try await Self.push(client, apns, jwt: try await Self.providerToken(), headers: ["apns-topic": "org.example.other"])

            #expect(reply.status == 400 && reply.reason == "BadTopic")
            #expect(apns.rejections.map(\.reason) == ["BadTopic"])
        }
    }

    @Test func aTokenIssuedTwoHoursAgoHasExpired() async throws {
        try await Self.withAPNs { apns, client in
            let issuedAt = Date(timeIntervalSince1970: Date().addingTimeInterval(-7200).timeIntervalSince1970.rounded(.down))
            let reply = try await Self.push(client, apns, jwt: try await Self.providerToken(issuedAt: issuedAt))

            #expect(reply.status == 403 && reply.reason == "ExpiredProviderToken")
            let rejection = try #require(apns.rejections.first)
            #expect(rejection.issuedAt == issuedAt)
        }
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var method = "POST"
        var path: String?
        var headers: [String: String?] = [:]
        var body = #"{"aps":{"content-available":1}}"#
        var status: Int
        var reason: String
        var testDescription: String { reason }
    }

    /// The rest of APNs' checks, one fault each.
    @Test(arguments: [
        Refusal(path: "/3/device/0A1B", status: 404, reason: "BadPath"),
        Refusal(path: "/2/device/0a1b", status: 404, reason: "BadPath"),
        Refusal(method: "PUT", status: 405, reason: "MethodNotAllowed"),
        Refusal(headers: ["authorization": nil], status: 403, reason: "MissingProviderToken"),
        Refusal(headers: ["authorization": "bearer not.a.jwt"], status: 403, reason: "InvalidProviderToken"),
        Refusal(headers: ["apns-topic": nil], status: 400, reason: "MissingTopic"),
        Refusal(headers: ["apns-push-type": "voip"], status: 400, reason: "InvalidPushType"),
        Refusal(headers: ["apns-priority": "10"], status: 400, reason: "BadPriority"),
        Refusal(headers: ["apns-expiration": "soon"], status: 400, reason: "BadExpirationDate"),
        Refusal(headers: ["apns-id": "not-a-uuid"], status: 400, reason: "BadMessageId"),
        Refusal(body: "", status: 400, reason: "PayloadEmpty"),
        Refusal(body: #"{"data":1}"#, status: 400, reason: "PayloadEmpty"),
        Refusal(body: #"{"aps":{},"pad":""# + String(repeating: "x", count: 4096) + #""}"#, status: 413, reason: "PayloadTooLarge"),
    ])
    func aFaultyRequestIsRefused(_ refusal: Refusal) async throws {
        try await Self.withAPNs { apns, client in
            let reply = try await Self.push(
                client, apns, method: refusal.method, path: refusal.path, jwt: try await Self.providerToken(), headers: refusal.headers, body: refusal.body
            )
            #expect(reply.status == refusal.status && reply.reason == refusal.reason)
            #expect(apns.rejections.map(\.reason) == [refusal.reason])
        }
    }

    @Test func aWaitReturnsWhenTheDeliveriesArrive() async throws {
        try await Self.withAPNs { apns, client in
            let jwt = try await Self.providerToken()
            // Started before the pushes, so usually woken by the server's recording rather than finding them there.
            async let waited = apns.waitForDeliveries(to: Self.deviceToken, count: 2)
            _ = try await Self.push(client, apns, jwt: jwt)
            _ = try await Self.push(client, apns, jwt: jwt, headers: ["apns-push-type": "alert", "apns-priority": "10"])
            let deliveries = try await waited
            #expect(deliveries.map { $0.headers["apns-push-type"] } == ["background", "alert"])
        }
    }

    @Test func aWaitForDeliveriesThatNeverComeTimesOut() async throws {
        try await Self.withAPNs { apns, _ in
            await #expect(throws: TestFailure.self) {
                try await apns.waitForDeliveries(count: 1, timeout: .milliseconds(50))
            }
        }
    }
}
