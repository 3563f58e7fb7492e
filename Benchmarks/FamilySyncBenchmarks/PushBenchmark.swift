import AsyncHTTPClient
import Crypto
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import StandInAPNs
import Synchronization

/// Push (PROTOCOL §12), with the server in this process and the stand-in APNs (HTTP/2 over TLS,
/// every provider token's signature checked) on loopback: a parent's configuration change to a
/// child, timed from sending the write (its commit is inside) to
/// - the child's background push arriving at APNs, and, as the baseline in the same round,
/// - the answer of a long poll a co-parent of the same family holds.
/// Families are written in turn, so that no child is written twice within the push interval (1 s).
enum PushBenchmark {
    static let teamID = "TEAM123456"
    static let keyID = "KEY7654321"
    static let topic = "com.example.screentime"

    struct Family {
        var parent: FamilySyncClient
        var coParent: FamilySyncClient
        var zone: String
        var token: String
    }

    static func run(_ arguments: [String]) async throws {
        let changes = arguments.count > 0 ? Int(arguments[0]) ?? 1000 : 1000
        let families = arguments.count > 1 ? Int(arguments[1]) ?? 200 : 200
        let key = P256.Signing.PrivateKey()
        let apns = try await StandInAPNs.start(teamID: teamID, keyID: keyID, publicKey: key.publicKey, topic: topic)
        let settings = PushSettings(
            destination: .apns(keyPEM: key.pemRepresentation, keyID: keyID, teamID: teamID, environment: nil), minimumInterval: 1,
            apnsBaseURL: apns.baseURL, trustRoots: [apns.certificatePEM]
        )
        let server: InProcessServer
        do {
            server = try await InProcessServer.start(push: settings)
        } catch {
            try? await apns.shutdown()
            throw error
        }
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(90)))
        // A connection for each held poll, and some for the writes.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = families + 16
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            try await measure(server: server, apns: apns, http: http, changes: changes, familyCount: families)
        } catch {
            // Its embedded PostgreSQL must not outlive a failed run.
            try? await http.shutdown()
            try? await server.stop()
            try? await apns.shutdown()
            throw error
        }
        try await http.shutdown()
        try await server.stop()
        try await apns.shutdown()
    }

    static func measure(server: InProcessServer, apns: StandInAPNs, http: HTTPClient, changes: Int, familyCount: Int) async throws {
        let anonymous = FamilySyncClient(serverURL: URL(string: server.base)!, httpClient: http)
        var families: [Family] = []
        for index in 0..<familyCount {
            let created = try await anonymous.createFamily(.init(name: "Push parent \(index)", platform: .ios, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: created.credential)
            func pair(_ role: DeviceRole) async throws -> AcceptPairingResponse {
                let invitation = try await parent.createPairing(.init(role: role, childName: role == .child ? "Child \(index)" : nil))
                let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "\(role) \(index)", platform: .ios, timeZone: "UTC"))
                _ = try await parent.confirmPairing(invitation.pairing.id)
                return accepted
            }
            let child = try await pair(.child)
            let coParent = try await pair(.parent)
            let token = String(format: "%064x", index + 1)
            try await anonymous.authenticated(as: child.credential).registerPush(token: token, topic: topic, environment: .production)
            families.append(Family(
                parent: parent, coParent: anonymous.authenticated(as: coParent.credential), zone: Device.zoneName(forChild: child.device.id), token: token
            ))
        }
        let answers = PollAnswers(count: familyCount)
        let clock = ContinuousClock()
        try await withThrowingTaskGroup(of: Void.self) { polls in
            for (index, family) in families.enumerated() {
                polls.addTask {
                    var since: String?
                    while !Task.isCancelled {
                        let answer = try await family.coParent.poll(since: since, timeout: 60)
                        if answer.changed { answers.record(index, at: clock.now) }
                        since = answer.changeToken
                    }
                }
            }
            try await waitForPolls(familyCount, at: server, http: http)
            var pushLatencies: [Double] = []
            var pollLatencies: [Double] = []
            for change in 0..<changes {
                let index = change % familyCount
                let family = families[index]
                let pushesBefore = change / familyCount
                let name = "app-\(change)"
                let fields: [String: JSONValue] = [
                    "logicalID": .string(name), "displayName": .string(name), "category": .string("learning"),
                    "isEnabled": .bool(true), "blockingEnabled": .bool(false),
                ]
                let sent = clock.now
                _ = try await family.parent.modify(family.zone, ModifyRecordsRequest(operations: [
                    .init(operationType: .forceReplace, record: .init(recordName: name, recordType: "AppConfiguration", fields: fields)),
                ]))
                _ = try await apns.waitForDeliveries(to: family.token, count: pushesBefore + 1)
                let pushed = clock.now
                let answered = try await answers.wait(index, count: pushesBefore + 1)
                pushLatencies.append(seconds(pushed - sent) * 1000)
                pollLatencies.append(seconds(answered - sent) * 1000)
            }
            polls.cancelAll()
            pushLatencies.sort()
            pollLatencies.sort()
            let deliveries = apns.deliveries
            print("FamilySync push benchmark: \(changes) parent changes over \(familyCount) families, push interval 1 s, stand-in APNs over HTTP/2 + TLS")
            print(String(format: "  write → background push at APNs: p50 %.2f ms, p99 %.2f ms, max %.2f ms", percentile(pushLatencies, 0.5), percentile(pushLatencies, 0.99), pushLatencies.last ?? 0))
            print(String(format: "  write → co-parent's poll answer (baseline): p50 %.2f ms, p99 %.2f ms, max %.2f ms", percentile(pollLatencies, 0.5), percentile(pollLatencies, 0.99), pollLatencies.last ?? 0))
            print(String(format: "  ratio of p50s (push / poll): %.2f", percentile(pushLatencies, 0.5) / percentile(pollLatencies, 0.5)))
            print("  pushes at APNs: \(deliveries.count) (one per change: \(deliveries.count == changes)), refused by its checks: \(apns.rejections.count)")
        }
    }

    /// Until the server holds `count` polls (`familysync_polls_active`).
    static func waitForPolls(_ count: Int, at server: InProcessServer, http: HTTPClient) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let response = try await http.execute(HTTPClientRequest(url: server.base + "/metrics"), timeout: .seconds(5))
            let text = String(buffer: try await response.body.collect(upTo: 1 << 24))
            let line = text.split(separator: "\n").first { $0.hasPrefix("familysync_polls_active ") }
            if let value = line?.split(separator: " ").last.flatMap({ Double($0) }), Int(value) >= count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchFailure("the server never held \(count) polls")
    }

    /// When each family's co-parent's poll answered with a change, in order.
    final class PollAnswers: Sendable {
        private let answers: Mutex<[[ContinuousClock.Instant]]>

        init(count: Int) {
            answers = Mutex(Array(repeating: [], count: count))
        }

        func record(_ family: Int, at instant: ContinuousClock.Instant) {
            answers.withLock { $0[family].append(instant) }
        }

        func wait(_ family: Int, count: Int) async throws -> ContinuousClock.Instant {
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                if let instant = answers.withLock({ $0[family].count >= count ? $0[family][count - 1] : nil }) { return instant }
                guard ContinuousClock.now < deadline else { throw BenchFailure("family \(family)'s poll never answered") }
                try await Task.sleep(for: .microseconds(200))
            }
        }
    }
}
