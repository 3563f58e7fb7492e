import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The bad inputs of daily totals (PROTOCOL §9.2): each names what is wrong and changes nothing,
/// not even the valid apps of the same report.
@Suite struct UsageTotalsBadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        /// The body's members besides `apps` replaced as given ("-" drops one), and the apps.
        var body: [String: String] = [:]
        var apps: [[String: String]] = [[:]]
        var asParent = false
        var status: HTTPResponse.Status = .badRequest
        var code = "BAD_REQUEST"
        var field: String?
    }

    /// The test server's clock stands at 2026-11-18T11:06:40Z.
    static func json(_ bad: Case) -> String {
        var members: [String: String] = ["timeZone": "\"UTC\"", "date": "\"2026-11-18\""]
        for (key, value) in bad.body { members[key] = value == "-" ? nil : value }
        let apps = bad.apps.map { changes in
            var app: [String: String] = ["logicalID": "\"tiktok\"", "displayName": "\"TikTok\"", "category": "\"social_media\"", "totalSeconds": "600"]
            for (key, value) in changes { app[key] = value == "-" ? nil : value }
            return "{" + app.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        }
        members["apps"] = "[" + apps.joined(separator: ",") + "]"
        return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    static let cases: [Case] = [
        Case(description: "a date after tomorrow", body: ["date": "\"2026-11-20\""], field: "date"),
        Case(description: "a date after tomorrow where it is already tomorrow", body: ["date": "\"2026-11-21\"", "timeZone": "\"Pacific/Kiritimati\""], field: "date"),
        Case(description: "a date past retention", body: ["date": "\"2025-01-01\""], field: "date"),
        Case(description: "a malformed date", body: ["date": "\"18/11/2026\""], field: "date"),
        Case(description: "a date that does not exist", body: ["date": "\"2026-02-30\""], field: "date"),
        Case(description: "no date", body: ["date": "-"], field: "date"),
        Case(description: "an invalid time zone", body: ["timeZone": "\"Mars/Olympus_Mons\""], field: "timeZone"),
        Case(description: "totalSeconds over 25 hours", apps: [["totalSeconds": "90001"]], field: "apps[0].totalSeconds"),
        Case(description: "negative totalSeconds", apps: [["totalSeconds": "-1"]], field: "apps[0].totalSeconds"),
        Case(description: "no totalSeconds", apps: [["totalSeconds": "-"]], field: "apps[0].totalSeconds"),
        Case(description: "negative pickups", apps: [["pickups": "-2"]], field: "apps[0].pickups"),
        Case(description: "negative points", apps: [["earnedPoints": "-2"]], field: "apps[0].earnedPoints"),
        Case(description: "an unknown category", apps: [["category": "\"games\""]], field: "apps[0].category"),
        Case(description: "a family's category without its record", apps: [["category": "\"x-chess\""]], field: "apps[0].category"),
        Case(description: "an empty displayName", apps: [["displayName": "\"\""]], field: "apps[0].displayName"),
        Case(description: "a logicalID over 255 bytes", apps: [["logicalID": "\"\(String(repeating: "a", count: 256))\""]], field: "apps[0].logicalID"),
        Case(description: "the same app twice", apps: [[:], ["totalSeconds": "700"]], field: "apps[1].logicalID"),
        Case(description: "one bad app among valid ones", apps: [[:], ["logicalID": "\"khan\"", "totalSeconds": "-5"], ["logicalID": "\"yt\""]], field: "apps[1].totalSeconds"),
        Case(description: "an unknown member", apps: [["minutes": "10"]], field: "apps[0].minutes"),
        Case(description: "1001 apps", apps: (0...1000).map { ["logicalID": "\"app\($0)\""] }, status: .contentTooLarge, code: "LIMIT_EXCEEDED", field: "apps"),
        Case(description: "no apps", apps: [], field: "apps"),
        Case(description: "an untracked parent reporting totals", asParent: true, status: .forbidden, code: "ACCESS_DENIED"),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ bad: Case) async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let before = try await server.fingerprint()
            let reply = try await server.send(.post, "/v1/usage/totals", credential: bad.asParent ? fixture.parent.credential : fixture.child.credential, json: Self.json(bad))
            #expect(reply.status == bad.status, "\(String(buffer: reply.body).prefix(300))")
            #expect(reply.errorCode == bad.code)
            #expect(reply.error?.field == bad.field)
            #expect(try await server.fingerprint() == before, "the refused report changed the database")
        }
    }

    /// A day holds at most 1000 apps: the report that would make 1001 is refused whole.
    @Test func aDayFullOfAppsTakesNoMore() async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let full = Case(description: "1000 apps", apps: (0..<1000).map { ["logicalID": "\"app\($0)\""] })
            let first = try await server.send(.post, "/v1/usage/totals", credential: fixture.child.credential, json: Self.json(full))
            #expect(first.status == .ok, "\(String(buffer: first.body).prefix(300))")
            let before = try await server.fingerprint()
            let more = Case(description: "one more", apps: [["logicalID": "\"app0\"", "totalSeconds": "900"], ["logicalID": "\"another\""]])
            let reply = try await server.send(.post, "/v1/usage/totals", credential: fixture.child.credential, json: Self.json(more))
            #expect(reply.status == .contentTooLarge)
            #expect(reply.errorCode == "LIMIT_EXCEEDED")
            #expect(reply.error?.field == "apps")
            #expect(try await server.fingerprint() == before)
        }
    }
}
