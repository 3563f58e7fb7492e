import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The bad inputs of usage uploads (PROTOCOL §7.2): each names the first bad record and changes
/// nothing, not even the valid records of the same batch.
@Suite struct UsageBadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        /// The body, given a valid record to build on and the caller's fixture.
        var json: @Sendable (_ valid: @Sendable ([String: String]) -> String, _ fixture: FamilyFixture) -> String
        var asParent = false
        var status: HTTPResponse.Status
        var code: String
        var field: String?
        /// Words the reason must contain.
        var reason: String? = nil
    }

    /// A valid record (ClockStart is the test server's manual clock), members replaced as given
    /// (a value of "-" drops the member).
    static func record(_ changes: [String: String]) -> String {
        var members: [String: String] = [
            "recordID": "\"\(UUID().lowercased)\"", "logicalID": "\"khan\"", "displayName": "\"Khan\"", "category": "\"learning\"",
            "sessionStart": "\"2026-11-17T10:00:00.000Z\"", "sessionEnd": "\"2026-11-17T10:10:00.000Z\"", "totalSeconds": "600", "earnedPoints": "5",
        ]
        for (key, value) in changes { members[key] = value == "-" ? nil : value }
        return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    static func body(_ records: [String], timeZone: String? = nil) -> String {
        #"{\#(timeZone.map { #""timeZone":\#($0),"# } ?? "")"records":[\#(records.joined(separator: ","))]}"#
    }

    static let cases: [Case] = [
        Case(description: "sessionEnd before sessionStart", json: { r, _ in body([r(["sessionEnd": "\"2026-11-17T09:59:59.000Z\""])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].sessionEnd"),
        Case(description: "totalSeconds longer than the session", json: { r, _ in body([r(["totalSeconds": "602"])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].totalSeconds"),
        Case(description: "negative totalSeconds", json: { r, _ in body([r(["totalSeconds": "-1"])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].totalSeconds"),
        Case(description: "totalSeconds with a fraction", json: { r, _ in body([r(["totalSeconds": "60.5"])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].totalSeconds", reason: "expected an integer"),
        Case(description: "points past 64 bits in a later record", json: { r, _ in body([r([:]), r(["earnedPoints": "1e30"])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[1].earnedPoints", reason: "out of range"),
        Case(description: "pickups as a string", json: { r, _ in body([r(["pickups": "\"3\""])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].pickups", reason: "expected an integer"),
        Case(description: "a session in the future", json: { r, _ in body([r(["sessionStart": "\"2030-01-01T00:00:00.000Z\"", "sessionEnd": "\"2030-01-01T00:10:00.000Z\""])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].sessionEnd"),
        Case(description: "a session over 36 hours", json: { r, _ in body([r(["sessionStart": "\"2026-11-15T00:00:00.000Z\"", "totalSeconds": "60"])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].sessionEnd"),
        Case(description: "a session older than the retention", json: { r, _ in body([r(["sessionStart": "\"2025-01-01T00:00:00.000Z\"", "sessionEnd": "\"2025-01-01T00:10:00.000Z\""])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].sessionEnd"),
        Case(description: "negative points", json: { r, _ in body([r(["earnedPoints": "-5"])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].earnedPoints"),
        Case(description: "an unknown category", json: { r, _ in body([r(["category": "\"games\""])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].category"),
        Case(description: "no displayName", json: { r, _ in body([r(["displayName": "-"])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].displayName"),
        Case(description: "an empty logicalID", json: { r, _ in body([r(["logicalID": "\"\""])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].logicalID"),
        Case(description: "a recordID that is not a UUID", json: { r, _ in body([r(["recordID": "\"usage-1\""])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].recordID"),
        Case(description: "the same recordID twice", json: { r, _ in
            let id = "\"\(UUID().lowercased)\""
            return body([r(["recordID": id]), r(["recordID": id])])
        }, status: .badRequest, code: "BAD_REQUEST", field: "records[1].recordID"),
        Case(description: "a malformed instant", json: { r, _ in body([r(["sessionStart": "\"yesterday\""])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].sessionStart"),
        Case(description: "an unknown member", json: { r, _ in body([r(["appName": "\"x\""])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].appName"),
        Case(description: "an unknown member whose value is null", json: { r, _ in body([r(["appName": "null"])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].appName"),
        Case(description: "a null bundleIdentifier", json: { r, _ in body([r(["bundleIdentifier": "null"])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[0].bundleIdentifier"),
        Case(description: "one bad record among valid ones", json: { r, _ in body([r([:]), r([:]), r(["earnedPoints": "-1"]), r([:])]) }, status: .badRequest, code: "BAD_REQUEST", field: "records[2].earnedPoints"),
        Case(description: "1001 records", json: { r, _ in body((0...1000).map { _ in r([:]) }) }, status: .contentTooLarge, code: "LIMIT_EXCEEDED", field: "records"),
        Case(description: "no records", json: { _, _ in body([]) }, status: .badRequest, code: "BAD_REQUEST", field: "records"),
        Case(description: "an invalid time zone", json: { r, _ in body([r([:])], timeZone: "\"Mars/Olympus_Mons\"") }, status: .badRequest, code: "BAD_REQUEST", field: "timeZone"),
        Case(description: "a child uploading for another device", json: { r, fixture in body([r(["deviceID": "\"\(fixture.awaiting.deviceID.lowercased)\""])]) }, status: .forbidden, code: "ACCESS_DENIED", field: "records[0].deviceID"),
        Case(description: "a parent uploading usage", json: { r, _ in body([r([:])]) }, asParent: true, status: .forbidden, code: "ACCESS_DENIED", field: nil),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ bad: Case) async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let before = try await server.fingerprint()
            let json = bad.json({ Self.record($0) }, fixture)
            let reply = try await server.send(.post, "/v1/usage", credential: bad.asParent ? fixture.parent.credential : fixture.child.credential, json: json)
            #expect(reply.status == bad.status, "\(String(buffer: reply.body).prefix(300))")
            #expect(reply.errorCode == bad.code)
            #expect(reply.error?.field == bad.field)
            if let reason = bad.reason { #expect(reply.error?.reason.contains(reason) == true, "\(reply.error?.reason ?? "")") }
            #expect(try await server.fingerprint() == before, "the refused upload changed the database")
        }
    }
}
