import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// `POST /v1/poll` (PROTOCOL §6, §10): a tracked device's poll carrying its heartbeat. The heartbeat
/// is taken as `POST /v1/devices/me/health` takes it, before the poll's first read; the poll then
/// answers and holds as `GET` does; and every refusal, of the query or of the body, comes before
/// anything is recorded.
@Suite struct HeartbeatPollTests {
    static func heartbeat(_ server: TestServer, active: Bool = true, sequence: Int = 1, memory: Int = 6) -> String {
        #"{"heartbeatAt":"\#(Instant.format(server.clock.now()))","monitoringActive":\#(active),"notificationSequence":\#(sequence),"memoryUsageMB":\#(memory)}"#
    }

    static func health(of device: TestDevice, by parent: TestDevice, on server: TestServer) async throws -> DeviceHealthBody {
        try await server.send(.get, "/v1/devices/\(device.deviceID.lowercased)/health", credential: parent.credential).decode(DeviceHealthBody.self)
    }

    @Test func thePollRecordsTheHeartbeatThenAnswersAsTheGet() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let before = try await server.databaseToken(child)
            // The first heartbeat writes the device's `health` record, which the poll's first read
            // then sees: the heartbeat came first.
            let woken = try await server.send(.post, "/v1/poll?since=\(before)&timeout=20", credential: child.credential, json: Self.heartbeat(server), timeout: .seconds(15))
            #expect(woken.status == .ok, "\(String(buffer: woken.body))")
            let answer = try woken.decode(PollResponse.self)
            #expect(answer.changed && answer.zones == [Device.zoneName(forChild: child.deviceID)])
            let health = try await Self.health(of: child, by: parent, on: server)
            #expect(health.status == "healthy" && health.lastHeartbeatAt == server.clock.now() && health.memoryUsageMB == 6)

            // A quiet heartbeat changes nothing a poll sees: it is held to its timeout, and answers
            // the token it was sent.
            server.clock.advance(by: 30)
            let quiet = try await server.send(
                .post, "/v1/poll?since=\(answer.changeToken)&timeout=1", credential: child.credential, json: Self.heartbeat(server, sequence: 2), timeout: .seconds(30)
            )
            #expect(try quiet.decode(PollResponse.self) == PollResponse(changed: false, changeToken: answer.changeToken))
            #expect(try await Self.health(of: child, by: parent, on: server).lastHeartbeatAt == server.clock.now())

            // Held, it wakes on a parent's change in the child's zone, as a GET does.
            server.clock.advance(by: 30)
            let held = Task {
                try await server.send(.post, "/v1/poll?since=\(answer.changeToken)&timeout=60", credential: child.credential, json: Self.heartbeat(server, sequence: 3), timeout: .seconds(50))
            }
            try await OpenWaits.during("the heartbeat's poll held", limit: .seconds(60)) {
                while server.heldPolls == 0 { try await Task.sleep(for: .milliseconds(10)) }
            }
            try await server.configure(Device.zoneName(forChild: child.deviceID), by: parent, name: "app-9")
            let change = try await held.value.decode(PollResponse.self)
            #expect(change.changed && change.zones == [Device.zoneName(forChild: child.deviceID)])
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var query: String = "timeout=0"
        /// The body, given the server (for its clock).
        var json: @Sendable (TestServer) -> String = { HeartbeatPollTests.heartbeat($0) }
        var headers: [(String, String)] = []
        /// Sent by the family's parent, which is not tracked, instead of the child.
        var byParent = false
        var status: Int
        var code: String
        var field: String?
    }

    static func errorJSON(_ server: TestServer) -> String {
        #"{"id":"\#(UUID().lowercased)","timestamp":"\#(Instant.format(server.clock.now()))","eventName":"e","action":"record_usage","success":false}"#
    }

    static let cases: [Case] = [
        Case(description: "a malformed since", query: "since=not-a-token&timeout=0", status: 400, code: "BAD_CHANGE_TOKEN", field: "since"),
        Case(description: "timeout 61", query: "timeout=61", status: 400, code: "BAD_REQUEST", field: "timeout"),
        Case(description: "no body", json: { _ in "" }, status: 400, code: "BAD_REQUEST"),
        Case(description: "not JSON", json: { _ in "{" }, status: 400, code: "BAD_REQUEST"),
        Case(description: "monitoringActive missing", json: { #"{"heartbeatAt":"\#(Instant.format($0.clock.now()))"}"# }, status: 400, code: "BAD_REQUEST", field: "monitoringActive"),
        Case(description: "an unknown member", json: { #"{"heartbeatAt":"\#(Instant.format($0.clock.now()))","monitoringActive":true,"pulse":1}"# }, status: 400, code: "BAD_REQUEST", field: "pulse"),
        Case(description: "heartbeatAt ten minutes ahead", json: { #"{"heartbeatAt":"\#(Instant.format($0.clock.now().addingTimeInterval(600)))","monitoringActive":true}"# }, status: 400, code: "BAD_REQUEST", field: "heartbeatAt"),
        Case(description: "notificationSequence -1", json: { #"{"heartbeatAt":"\#(Instant.format($0.clock.now()))","monitoringActive":true,"notificationSequence":-1}"# }, status: 400, code: "BAD_REQUEST", field: "notificationSequence"),
        Case(description: "an unknown action", json: { server in
            #"{"heartbeatAt":"\#(Instant.format(server.clock.now()))","monitoringActive":true,"errors":[\#(HeartbeatPollTests.errorJSON(server).replacingOccurrences(of: "record_usage", with: "explode"))]}"#
        }, status: 400, code: "BAD_REQUEST", field: "errors[0].action"),
        Case(description: "101 errors", json: { server in
            #"{"heartbeatAt":"\#(Instant.format(server.clock.now()))","monitoringActive":true,"errors":[\#((0...100).map { _ in HeartbeatPollTests.errorJSON(server) }.joined(separator: ","))]}"#
        }, status: 413, code: "LIMIT_EXCEEDED", field: "errors"),
        Case(description: "an Idempotency-Key", headers: [("Idempotency-Key", "beat-1")], status: 400, code: "BAD_REQUEST", field: "Idempotency-Key"),
        Case(description: "a device that is not tracked", byParent: true, status: 403, code: "ACCESS_DENIED"),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ bad: Case) async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let token = try await server.databaseToken(parent)
            let caller = bad.byParent ? parent : child
            let reply = try await server.send(.post, "/v1/poll?" + bad.query, credential: caller.credential, json: bad.json(server), headers: bad.headers, timeout: .seconds(20))
            #expect(Int(reply.status.code) == bad.status, "\(String(buffer: reply.body))")
            #expect(reply.errorCode == bad.code)
            if let field = bad.field { #expect(reply.error?.field == field) }
            #expect(server.heldPolls == 0)
            // No heartbeat was recorded: the device is as it was, and nothing reached a feed.
            let health = try await Self.health(of: child, by: parent, on: server)
            #expect(health.status == "unknown" && health.lastHeartbeatAt == nil)
            let after = try await server.send(.get, "/v1/poll?since=\(token)&timeout=0", credential: parent.credential).decode(PollResponse.self)
            #expect(!after.changed)
        }
    }
}
