import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// PROTOCOL §12's delivery through the outbox, seen at a webhook receiver that checks every
/// signature: who a change wakes, coalescing, polls, alerts, and two instances on one database.
@Suite struct PushOutboxTests {
    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    static func settings(_ url: String, _ receiver: WebhookReceiver, minimumInterval: TimeInterval = 30) -> PushSettings {
        PushSettings(destination: .webhook(url: url, secret: receiver.secret), minimumInterval: minimumInterval, idleInterval: .milliseconds(50))
    }

    static func register(_ device: TestDevice, _ n: Int, on server: TestServer) async throws {
        let body = #"{"provider":"apns","token":"\#(token(n))","topic":"com.example.screentime","environment":"sandbox"}"#
        #expect(try await server.send(.put, "/v1/devices/me/push", credential: device.credential, json: body).status == .noContent)
    }

    /// A family whose child has push registration `n`, and the child's zone.
    static func registeredChild(_ n: Int, on server: TestServer) async throws -> (parent: TestDevice, child: TestDevice, zone: String) {
        let parent = try await server.createFamily()
        let (_, child) = try await server.pair(by: parent)
        try await register(child, n, on: server)
        return (parent, child, "child-\(child.deviceID.lowercased)")
    }

    /// The outbox's rows for a device.
    static func waiting(for device: TestDevice? = nil, on server: TestServer) async throws -> Int {
        let rows = try await server.postgres.query(
            "SELECT count(*) FROM push_outbox WHERE \(device?.deviceID)::uuid IS NULL OR device_id = \(device?.deviceID)", logger: testLogger
        )
        return Int(try await rows.decode(Int64.self).first { _ in true } ?? 0)
    }

    /// Waits until every row was sent and settled: whatever the outbox held has reached the receiver.
    static func drained(_ server: TestServer) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await waiting(on: server) > 0 {
            guard ContinuousClock.now < deadline else { throw TestFailure("the outbox still holds \(try await waiting(on: server)) rows") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until no row is claimed: every send under way was settled (a retry's time set).
    static func settled(_ server: TestServer) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let rows = try await server.postgres.query("SELECT count(*) FROM push_outbox WHERE claimed_until IS NOT NULL", logger: testLogger)
            if try await rows.decode(Int64.self).first(where: { _ in true }) == 0 { return }
            guard ContinuousClock.now < deadline else { throw TestFailure("a push stays claimed") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func aParentsChangeWakesTheChildOnceAndNeverTheWriter() async throws {
        try await withWebhookReceiver { receiver, url in
            try await withTestServer(push: Self.settings(url, receiver), isolation: .database) { server in
                let parent = try await server.createFamily()
                let (_, child) = try await server.pair(by: parent)
                let (_, sibling) = try await server.pair(by: parent)
                try await Self.register(parent, 1, on: server)
                try await Self.register(child, 2, on: server)
                try await Self.register(sibling, 3, on: server)
                let zone = "child-\(child.deviceID.lowercased)"
                try await server.configure(zone, by: parent)
                let push = try #require(try await receiver.waitForPushes(1).first)
                try await Self.drained(server)
                // The child only: the parent wrote it, the sibling cannot see the zone.
                #expect(receiver.pushes.count == 1)
                #expect(push.signatureValid)
                #expect(push.deviceID == child.deviceID.lowercased && push.kind == "background")
                #expect(push.json["token"] as? String == Self.token(2) && push.json["topic"] as? String == "com.example.screentime")
                #expect(push.json["priority"] as? Int == 5 && push.json["environment"] as? String == "sandbox")
                #expect((push.payload["aps"] as? [String: Any])?["content-available"] as? Int == 1)
                #expect((push.payload["familysync"] as? [String: Any])?["zones"] as? [String] == [zone])
            }
        }
    }

    @Test func changesWithinTheIntervalMergeIntoOnePush() async throws {
        try await withWebhookReceiver { receiver, url in
            try await withTestServer(push: Self.settings(url, receiver), isolation: .database) { server in
                let (parent, child, zone) = try await Self.registeredChild(2, on: server)
                try await server.configure(zone, by: parent)
                _ = try await receiver.waitForPushes(1)
                try await Self.drained(server)
                // Three more changes in two zones within 30 s: one row waits, holding both zones.
                try await server.configure(zone, by: parent, name: "app-2")
                try await server.configure("family", by: parent, name: "note-1")
                try await server.configure(zone, by: parent, name: "app-3")
                #expect(try await Self.waiting(for: child, on: server) == 1)
                server.clock.advance(by: 29)
                server.wakePushSender()
                #expect(try await Self.waiting(for: child, on: server) == 1)
                server.clock.advance(by: 2)
                server.wakePushSender()
                let pushes = try await receiver.waitForPushes(2)
                try await Self.drained(server)
                #expect(receiver.pushes.count == 2)
                #expect((pushes[1].payload["familysync"] as? [String: Any])?["zones"] as? [String] == ["family", zone].sorted())
            }
        }
    }

    @Test func aDeviceHoldingAPollIsToldByThePollNotAPush() async throws {
        try await withWebhookReceiver { receiver, url in
            try await withTestServer(push: Self.settings(url, receiver), isolation: .database) { server in
                let (parent, child, zone) = try await Self.registeredChild(2, on: server)
                let poll = Task { try await server.send(.get, "/v1/poll?timeout=30", credential: child.credential, timeout: .seconds(20)) }
                try await server.waitForHeldPolls(1)
                try await server.configure(zone, by: parent)
                // Nothing was queued for it in the change's transaction; the poll answers.
                #expect(try await Self.waiting(for: child, on: server) == 0)
                let answer = try await poll.value
                #expect(try answer.decode(PollResponse.self).changed)
                // The poll over, its mark is gone: the next change is pushed.
                let held = try await server.postgres.query("SELECT poll_held_until FROM device_push_tokens", logger: testLogger).decode(Date?.self)
                    .reduce(into: [Date?]()) { $0.append($1) }
                #expect(held == [nil])
                try await server.configure(zone, by: parent, name: "app-2")
                #expect(try await receiver.waitForPushes(1).map(\.deviceID) == [child.deviceID.lowercased])
            }
        }
    }

    @Test func anAlertIsOneVisibleNotificationPerParentDevice() async throws {
        try await withWebhookReceiver { receiver, url in
            try await withTestServer(push: Self.settings(url, receiver), isolation: .database) { server in
                let parent = try await server.createFamily()
                let (_, otherParent) = try await server.pair(by: parent, role: .parent)
                let (_, child) = try await server.pair(by: parent)
                try await Self.register(parent, 1, on: server)
                try await Self.register(otherParent, 2, on: server)
                try await Self.register(child, 3, on: server)
                let alert = #"{"clientAlertID":"\#(UUID().lowercased)","kind":"threshold","usedMinutes":60,"category":"gaming","message":"An hour of games"}"#
                #expect(try await server.send(.post, "/v1/alerts", credential: child.credential, json: alert).status == .created)
                // Each parent: the alert, and a background push for the member zone it landed in.
                _ = try await receiver.waitForPushes(4)
                try await Self.drained(server)
                let pushes = receiver.pushes
                #expect(pushes.count == 4 && pushes.allSatisfy(\.signatureValid))
                let alerts = pushes.filter { $0.kind == "alert" }
                #expect(Set(alerts.map(\.deviceID)) == [parent.deviceID.lowercased, otherParent.deviceID.lowercased] && alerts.count == 2)
                #expect(!pushes.contains { $0.deviceID == child.deviceID.lowercased }, "the child wrote it")
                for push in alerts {
                    let aps = try #require(push.payload["aps"] as? [String: Any])
                    let shown = try #require(aps["alert"] as? [String: String])
                    #expect(shown == ["title": "Usage alert", "body": "An hour of games"])
                    #expect(push.json["priority"] as? Int == 10)
                }
            }
        }
    }

    @Test func twoInstancesNeverSendTheSamePush() async throws {
        try await withWebhookReceiver { receiver, url in
            // No coalescing: the parent's background pushes go as they come, beside the alerts.
            try await withTestServer(push: Self.settings(url, receiver, minimumInterval: 0), isolation: .database) { first in
                try await withTestServer(databaseURL: first.databaseURL, push: Self.settings(url, receiver, minimumInterval: 0)) { second in
                    let parent = try await first.createFamily()
                    let (_, child) = try await first.pair(by: parent)
                    try await Self.register(parent, 1, on: first)
                    let count = 40
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for index in 0..<count {
                            let server = index.isMultiple(of: 2) ? first : second
                            group.addTask {
                                let alert = #"{"clientAlertID":"\#(UUID().lowercased)","kind":"threshold","usedMinutes":\#(index),"category":"gaming","message":"Alert \#(index)"}"#
                                let reply = try await server.send(.post, "/v1/alerts", credential: child.credential, json: alert)
                                #expect(reply.status == .created, "\(String(buffer: reply.body))")
                            }
                        }
                        try await group.waitForAll()
                    }
                    _ = try await receiver.waitForPushes(count)
                    try await Self.drained(first)
                    let alerts = receiver.pushes.filter { $0.kind == "alert" }
                    // An alert row is never merged into: its id twice would be one push sent twice.
                    #expect(alerts.count == count)
                    #expect(Set(alerts.map(\.pushID)).count == count, "no alert twice")
                }
            }
        }
    }
}
