import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The bad inputs of health reports and reads (PROTOCOL §10): each is §1.1's error naming what is
/// wrong, and changes nothing (a heartbeat with a bad error stores neither).
@Suite struct HealthBadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        /// The report's members replaced as given ("-" drops one); `error` changes the one error.
        var body: [String: String] = [:]
        var error: [String: String]? = nil
        var errorCount = 1
        var asParent = false
        var status: HTTPResponse.Status = .badRequest
        var code = "BAD_REQUEST"
        var field: String?
        /// Words the reason must contain.
        var reason: String?
    }

    /// The test server's clock stands at 2026-11-18T11:06:40Z.
    static func json(_ bad: Case) -> String {
        var members: [String: String] = ["heartbeatAt": "\"2026-11-18T11:06:40.000Z\"", "monitoringActive": "true", "notificationSequence": "3"]
        for (key, value) in bad.body { members[key] = value == "-" ? nil : value }
        if let changes = bad.error {
            let errors = (0..<bad.errorCount).map { _ in
                var error: [String: String] = [
                    "id": "\"\(UUID().lowercased)\"", "timestamp": "\"2026-11-18T11:00:00.000Z\"", "eventName": "\"intervalDidStart\"",
                    "action": "\"record_usage\"", "success": "false",
                ]
                for (key, value) in changes { error[key] = value == "-" ? nil : value }
                return "{" + error.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
            }
            members["errors"] = "[" + errors.joined(separator: ",") + "]"
        }
        return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    static let cases: [Case] = [
        Case(description: "a heartbeat more than 5 minutes ahead", body: ["heartbeatAt": "\"2026-11-18T11:12:00.000Z\""], field: "heartbeatAt"),
        Case(description: "a malformed heartbeatAt", body: ["heartbeatAt": "\"now\""], field: "heartbeatAt"),
        Case(description: "no heartbeatAt", body: ["heartbeatAt": "-"], field: "heartbeatAt"),
        Case(description: "no monitoringActive", body: ["monitoringActive": "-"], field: "monitoringActive"),
        Case(description: "monitoringActive not a boolean", body: ["monitoringActive": "\"yes\""], field: "monitoringActive"),
        Case(description: "a negative sequence", body: ["notificationSequence": "-1"], field: "notificationSequence"),
        Case(description: "negative memory", body: ["memoryUsageMB": "-3"], field: "memoryUsageMB"),
        Case(description: "memory past the limit by a fraction", body: ["memoryUsageMB": "1000000.5"], field: "memoryUsageMB"),
        Case(description: "memory beyond any number", body: ["memoryUsageMB": "1e400"], field: "memoryUsageMB", reason: "out of range"),
        Case(description: "a sequence number with a fraction", body: ["notificationSequence": "1.5"], field: "notificationSequence", reason: "expected an integer"),
        Case(description: "a sequence number with a fraction after fractional memory", body: ["memoryUsageMB": "4.1", "notificationSequence": "2.25"],
             field: "notificationSequence", reason: "expected an integer"),
        Case(description: "a sequence number past 64 bits", body: ["notificationSequence": "1e30"], field: "notificationSequence", reason: "out of range"),
        Case(description: "a sequence number one past 64 bits", body: ["notificationSequence": "9223372036854775808"], field: "notificationSequence", reason: "out of range"),
        // §10's range, 0…2147483647: a 32-bit count, whose skips the day's counters hold.
        Case(description: "a sequence number one past its range", body: ["notificationSequence": "2147483648"], field: "notificationSequence", reason: "0–2147483647"),
        Case(description: "a sequence number of 3000000000", body: ["notificationSequence": "3000000000"], field: "notificationSequence", reason: "0–2147483647"),
        Case(description: "the largest 64-bit sequence number", body: ["notificationSequence": "9223372036854775807"], field: "notificationSequence", reason: "0–2147483647"),
        Case(description: "an unknown member", body: ["battery": "80"], field: "battery"),
        Case(description: "an empty appVersion", body: ["appVersion": "\"\""], field: "appVersion"),
        Case(description: "an appVersion of 65 characters", body: ["appVersion": "\"" + String(repeating: "1", count: 65) + "\""], field: "appVersion"),
        Case(description: "an appVersion with a line break", body: ["appVersion": "\"2.4\\n\""], field: "appVersion"),
        Case(description: "an osVersion beyond ASCII", body: ["osVersion": "\"18.1 β\""], field: "osVersion"),
        Case(description: "an osVersion ending in a space", body: ["osVersion": "\"18.1 \""], field: "osVersion"),
        Case(description: "an appVersion that is a number", body: ["appVersion": "2.4"], field: "appVersion"),
        Case(description: "an osVersion of null", body: ["osVersion": "null"], field: "osVersion"),
        Case(description: "an unknown action", error: ["action": "\"explode\""], field: "errors[0].action"),
        Case(description: "an error in the future", error: ["timestamp": "\"2026-11-18T12:00:00.000Z\""], field: "errors[0].timestamp"),
        Case(description: "an error without an id", error: ["id": "-"], field: "errors[0].id"),
        Case(description: "an error id that is not a UUID", error: ["id": "\"e1\""], field: "errors[0].id"),
        Case(description: "an empty eventName", error: ["eventName": "\"\""], field: "errors[0].eventName"),
        Case(description: "an error with an unknown member", error: ["stack": "\"…\""], field: "errors[0].stack"),
        Case(description: "an error's memory beyond any number", error: ["memoryUsageMB": "-1e400"], field: "errors[0].memoryUsageMB", reason: "out of range"),
        Case(description: "an error's memory as a string", error: ["memoryUsageMB": "\"4.1\""], field: "errors[0].memoryUsageMB", reason: "expected a number"),
        Case(description: "the same error twice", error: ["id": "\"5c9a4bd4-5a1e-4b53-9a57-8d0e7d3d2b11\""], errorCount: 2, field: "errors[1].id"),
        Case(description: "101 errors", error: [:], errorCount: 101, status: .contentTooLarge, code: "LIMIT_EXCEEDED", field: "errors"),
        Case(description: "an untracked parent reporting", asParent: true, status: .forbidden, code: "ACCESS_DENIED"),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ bad: Case) async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let before = try await server.fingerprint()
            let reply = try await server.send(.post, "/v1/devices/me/health", credential: bad.asParent ? fixture.parent.credential : fixture.child.credential, json: Self.json(bad))
            #expect(reply.status == bad.status, "\(String(buffer: reply.body).prefix(300))")
            #expect(reply.errorCode == bad.code)
            #expect(reply.error?.field == bad.field)
            if let reason = bad.reason { #expect(reply.error?.reason.contains(reason) == true, "\(reply.error?.reason ?? "")") }
            #expect(try await server.fingerprint() == before, "the refused report changed the database")
        }
    }

    /// Extensions measure memory as a `Double` (4.1 MB): taken, kept and answered as sent, in the
    /// heartbeat, its errors, the day read back, the export and the quiet heartbeat's answer.
    @Test func fractionalMemoryIsTakenAndAnsweredBack() async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let report = Self.json(Case(description: "", body: ["memoryUsageMB": "4.1"], error: ["memoryUsageMB": "3.75"]))
            let reply = try await server.send(.post, "/v1/devices/me/health", credential: fixture.child.credential, json: report)
            #expect(reply.status == .ok, "\(String(buffer: reply.body).prefix(300))")
            #expect(String(buffer: reply.body).contains(#""memoryUsageMB":4.1"#))
            let answered = try reply.decode(DeviceHealthBody.self)
            #expect(answered.memoryUsageMB == 4.1 && answered.lastErrors.first?.memoryUsageMB == 3.75)

            let uri = "/v1/devices/\(fixture.child.deviceID.lowercased)/health"
            let read = try await server.send(.get, uri, credential: fixture.parent.credential).decode(DeviceHealthBody.self)
            #expect(read.memoryUsageMB == 4.1 && read.lastErrors.first?.memoryUsageMB == 3.75)
            let export = try await server.send(.get, uri, credential: fixture.parent.credential, headers: [("Accept", "text/plain")])
            #expect(String(buffer: export.body).contains("memory: 4.1 MB") && String(buffer: export.body).contains("(3.75 MB)"), "\(String(buffer: export.body))")

            // Nothing a parent sees changes: the one-statement heartbeat, answered from the row.
            let quiet = Self.json(Case(description: "", body: ["memoryUsageMB": "4.25", "notificationSequence": "4"]))
            let again = try await server.send(.post, "/v1/devices/me/health", credential: fixture.child.credential, json: quiet)
            #expect(try again.decode(DeviceHealthBody.self).memoryUsageMB == 4.25, "\(String(buffer: again.body).prefix(300))")
        }
    }

    /// Heartbeats' numbers, and more: numbers past the range are refused whatever came before,
    /// and no run of valid ones overflows the day's counters (two skips of 2147483646 with a
    /// restart between: the count stays at 2147483647), on either path, all day.
    @Test func noRunOfSequenceNumbersBreaksTheDay() async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            var refused: [String] = []
            // Each sequence number, and whether it is in the range.
            let beats: [(String, Bool)] = [
                ("1", true), ("3000000000", false), ("3000000002", false), ("3000000003", false), ("9223372036854775807", false), ("9223372036854775807", false),
                ("2147483647", true), ("2147483647", true), ("0", true), ("2147483647", true), ("0", true), ("2147483647", true), ("2147483647", true), ("5", true),
            ]
            var last: DeviceHealthBody?
            for (sequence, valid) in beats {
                server.clock.advance(by: 30)
                let body = #"{"heartbeatAt":"\#(Instant.format(server.clock.now()))","monitoringActive":true,"notificationSequence":\#(sequence)}"#
                let reply = try await server.send(.post, "/v1/devices/me/health", credential: fixture.child.credential, json: body)
                let answer = "\(sequence): \(reply.status.code) \(String(buffer: reply.body).prefix(200))"
                if valid {
                    if reply.status == .ok { last = try reply.decode(DeviceHealthBody.self) } else { refused.append(answer) }
                } else if reply.status != .badRequest || reply.error?.field != "notificationSequence" {
                    refused.append(answer)
                }
            }
            #expect(refused.isEmpty, "\(refused.joined(separator: "\n"))")
            #expect(last?.missedNotifications == 2_147_483_647 && last?.sequenceResets == 3, "\(String(describing: last))")
            let read = try await server.send(.get, "/v1/devices/\(fixture.child.deviceID.lowercased)/health", credential: fixture.parent.credential)
            #expect(read.status == .ok, "\(String(buffer: read.body).prefix(300))")
            #expect(try read.decode(DeviceHealthBody.self).missedNotifications == 2_147_483_647)
        }
    }

    @Test func badReadsAreRefused() async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let child = fixture.child.deviceID.lowercased
            let cases: [(String, String, HTTPResponse.Status, String, String?)] = [
                ("/v1/devices/\(child)/health?date=2026-13-01", fixture.parent.credential, .badRequest, "BAD_REQUEST", "date"),
                ("/v1/devices/\(child)/health?date=yesterday", fixture.parent.credential, .badRequest, "BAD_REQUEST", "date"),
                ("/v1/devices/not-a-uuid/health", fixture.parent.credential, .badRequest, "BAD_REQUEST", "id"),
                ("/v1/devices/\(UUID().lowercased)/health", fixture.parent.credential, .notFound, "NOT_FOUND", nil),
                // The operator's report (§10.1): its week, with the operator token.
                ("/v1/fleet/tracking-report?week=2026-48", TestServer.operatorToken, .badRequest, "BAD_REQUEST", "week"),
                ("/v1/fleet/tracking-report?week=2026-W00", TestServer.operatorToken, .badRequest, "BAD_REQUEST", "week"),
                ("/v1/fleet/tracking-report?week=2025-W53", TestServer.operatorToken, .badRequest, "BAD_REQUEST", "week"),
                ("/v1/fleet/tracking-report?week=2026-W8", TestServer.operatorToken, .badRequest, "BAD_REQUEST", "week"),
                ("/v1/fleet/tracking-report?week=%EF%BC%92026-W48", TestServer.operatorToken, .badRequest, "BAD_REQUEST", "week"),
                ("/v1/fleet/tracking-report?week=", TestServer.operatorToken, .badRequest, "BAD_REQUEST", "week"),
                ("/v1/fleet/tracking-report?week=2026-W47&week=2026-W48", TestServer.operatorToken, .badRequest, "BAD_REQUEST", "week"),
                ("/v1/fleet/tracking-report?week=2026-W48", fixture.parent.credential, .unauthorized, "AUTHENTICATION_REQUIRED", nil),
            ]
            for (uri, credential, status, code, field) in cases {
                let reply = try await server.send(.get, uri, credential: credential)
                #expect(reply.status == status, "\(uri): \(String(buffer: reply.body))")
                #expect(reply.errorCode == code && reply.error?.field == field, "\(uri): \(String(buffer: reply.body))")
            }
        }
    }
}
