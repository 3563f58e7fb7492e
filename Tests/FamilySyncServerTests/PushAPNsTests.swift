import Crypto
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncServerTestSupport
import StandInAPNs
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The push sender against a stand-in APNs on this machine (§12): HTTP/2 over TLS, every header
/// and the provider token's ES256 signature checked, Apple's answers played on demand.
@Suite struct PushAPNsTests {
    static let teamID = "TEAM123456"
    static let keyID = "KEY7654321"
    static let topic = "com.example.screentime"
    static let key = P256.Signing.PrivateKey()

    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// A server pushing through a stand-in that checks times against the server's clock.
    static func withPushServer(_ body: @Sendable (TestServer, StandInAPNs) async throws -> Void) async throws {
        let clock = ManualClock()
        let apns = try await StandInAPNs.start(teamID: teamID, keyID: keyID, publicKey: key.publicKey, topic: topic, now: { clock.now() })
        let settings = PushSettings(
            destination: .apns(keyPEM: key.pemRepresentation, keyID: keyID, teamID: teamID, environment: nil), apnsBaseURL: apns.baseURL,
            trustRoots: [apns.certificatePEM], idleInterval: .milliseconds(50)
        )
        do {
            try await withTestServer(push: settings, clock: clock, isolation: .database) { server in try await body(server, apns) }
        } catch {
            try? await apns.shutdown()
            throw error
        }
        try await apns.shutdown()
    }

    static func register(_ device: TestDevice, _ n: Int, on server: TestServer) async throws {
        let body = #"{"provider":"apns","token":"\#(token(n))","topic":"\#(topic)","environment":"production"}"#
        #expect(try await server.send(.put, "/v1/devices/me/push", credential: device.credential, json: body).status == .noContent)
    }

    /// A family whose child has push registration `n`, and the child's zone.
    static func registeredChild(_ n: Int, on server: TestServer) async throws -> (parent: TestDevice, child: TestDevice, zone: String) {
        let parent = try await server.createFamily()
        let (_, child) = try await server.pair(by: parent)
        try await register(child, n, on: server)
        return (parent, child, "child-\(child.deviceID.lowercased)")
    }

    static func tokens(_ server: TestServer) async throws -> [String] {
        try await server.postgres.query("SELECT token FROM device_push_tokens ORDER BY token", logger: testLogger).decode(String.self)
            .reduce(into: []) { $0.append($1) }
    }

    @Test func aParentsChangeIsOneBackgroundPushToTheChildsToken() async throws {
        try await Self.withPushServer { server, apns in
            let (parent, _, zone) = try await Self.registeredChild(7, on: server)
            try await server.configure(zone, by: parent)
            let push = try #require(try await apns.waitForDeliveries(count: 1).first)
            try await PushOutboxTests.drained(server)
            #expect(apns.deliveries.count == 1 && apns.rejections.isEmpty)
            #expect(push.status == 200 && push.token == Self.token(7) && push.path == "/3/device/\(Self.token(7))")
            #expect(push.headers["apns-push-type"] == "background" && push.headers["apns-priority"] == "5" && push.headers["apns-topic"] == Self.topic)
            let expiration = try #require(push.headers["apns-expiration"].flatMap(Int.init))
            #expect(expiration == Int(server.clock.now().timeIntervalSince1970) + 3600)
            #expect(push.headers["apns-id"].flatMap(UUID.init(uuidString:)) != nil)
            #expect(push.issuedAt == Date(timeIntervalSince1970: server.clock.now().timeIntervalSince1970.rounded(.down)))
            #expect(push.payload?["aps"]?["content-available"] == .number(1))
            #expect(push.payload?["familysync"]?["zones"] == .array([.string(zone)]))
            // Counted: the registry is the process's, so other tests' pushes may be in it too.
            let metrics = String(buffer: try await server.send(.get, "/metrics").body)
            for name in ["familysync_pushes_sent_total{kind=\"background\"}", "familysync_push_outbox_depth", "familysync_push_delivery_seconds_count"] {
                #expect(metrics.contains(name), "\(name) on /metrics")
            }
        }
    }

    @Test func anAlertIsAVisibleNotificationToEachParent() async throws {
        try await Self.withPushServer { server, apns in
            let parent = try await server.createFamily()
            let (_, coParent) = try await server.pair(by: parent, role: .parent)
            let (_, child) = try await server.pair(by: parent)
            try await Self.register(parent, 1, on: server)
            try await Self.register(coParent, 2, on: server)
            let alert = #"{"clientAlertID":"\#(UUID().lowercased)","kind":"threshold","usedMinutes":60,"category":"gaming","message":"An hour of games"}"#
            #expect(try await server.send(.post, "/v1/alerts", credential: child.credential, json: alert).status == .created)
            _ = try await apns.waitForDeliveries(count: 4)
            try await PushOutboxTests.drained(server)
            let alerts = apns.deliveries.filter { $0.headers["apns-push-type"] == "alert" }
            #expect(apns.deliveries.count == 4 && apns.rejections.isEmpty)
            #expect(alerts.map(\.token).sorted() == [Self.token(1), Self.token(2)])
            for push in alerts {
                #expect(push.headers["apns-priority"] == "10")
                #expect(push.payload?["aps"]?["alert"] == .object(["title": .string("Usage alert"), "body": .string("An hour of games")]))
            }
        }
    }

    @Test(arguments: [StandInAPNs.Answer.unregistered, .badDeviceToken])
    func aDeadTokenIsRemoved(_ answer: StandInAPNs.Answer) async throws {
        try await Self.withPushServer { server, apns in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, sibling) = try await server.pair(by: parent)
            try await Self.register(child, 7, on: server)
            try await Self.register(sibling, 8, on: server)
            apns.answer(Self.token(7), with: [answer])
            try await server.configure("family", by: parent)
            _ = try await apns.waitForDeliveries(count: 2)
            try await PushOutboxTests.drained(server)
            #expect(try await Self.tokens(server) == [Self.token(8)], "the dead token only")
            let reason = answer == .unregistered ? "Unregistered" : "BadDeviceToken"
            #expect(String(buffer: try await server.send(.get, "/metrics").body).contains("familysync_push_failures_total{reason=\"\(reason)\"}"))
        }
    }

    @Test(arguments: [StandInAPNs.Answer.tooManyRequests, .unavailable, .internalError])
    func aRefusalToTryAgainIsRetriedAfterABackoff(_ answer: StandInAPNs.Answer) async throws {
        try await Self.withPushServer { server, apns in
            let (parent, _, _) = try await Self.registeredChild(7, on: server)
            apns.answer(Self.token(7), with: [answer, answer])
            try await server.configure("family", by: parent)
            _ = try await apns.waitForDeliveries(count: 1)
            // Waiting its backoff (1 s at most after a first try, 2 s after a second).
            try await PushOutboxTests.settled(server)
            #expect(try await PushOutboxTests.waiting(on: server) == 1)
            server.clock.advance(by: 1)
            server.wakePushSender()
            _ = try await apns.waitForDeliveries(count: 2)
            try await PushOutboxTests.settled(server)
            server.clock.advance(by: 2)
            server.wakePushSender()
            let deliveries = try await apns.waitForDeliveries(count: 3)
            try await PushOutboxTests.drained(server)
            #expect(deliveries.map(\.status).last == 200 && apns.deliveries.count == 3)
            #expect(Set(deliveries.compactMap { $0.headers["apns-id"] }).count == 1, "one push, tried three times")
            #expect(try await Self.tokens(server) == [Self.token(7)])
        }
    }

    @Test func aPushNotSentBeforeItExpiresIsDropped() async throws {
        try await Self.withPushServer { server, apns in
            let (parent, _, _) = try await Self.registeredChild(7, on: server)
            apns.answer(Self.token(7), with: [.unavailable])
            try await server.configure("family", by: parent)
            _ = try await apns.waitForDeliveries(count: 1)
            try await PushOutboxTests.settled(server)
            server.clock.advance(by: 3600)
            server.wakePushSender()
            try await PushOutboxTests.drained(server)
            #expect(apns.deliveries.count == 1)
        }
    }

    @Test func theProviderTokenIsKeptFortyMinutesThenRenewed() async throws {
        try await Self.withPushServer { server, apns in
            let (parent, _, _) = try await Self.registeredChild(7, on: server)
            let start = server.clock.now()
            for (index, minutes) in [0, 39, 41].enumerated() {
                server.clock.advance(by: TimeInterval(minutes) * 60 - server.clock.now().timeIntervalSince(start))
                try await server.configure("family", by: parent, name: "note-\(index)")
                _ = try await apns.waitForDeliveries(count: index + 1)
                try await PushOutboxTests.drained(server)
            }
            let deliveries = apns.deliveries
            #expect(apns.rejections.isEmpty && deliveries.count == 3)
            #expect(deliveries[0].jwt == deliveries[1].jwt, "kept at 39 minutes")
            #expect(deliveries[2].jwt != deliveries[1].jwt)
            #expect(deliveries[2].issuedAt == Date(timeIntervalSince1970: start.addingTimeInterval(41 * 60).timeIntervalSince1970.rounded(.down)))
        }
    }
}
