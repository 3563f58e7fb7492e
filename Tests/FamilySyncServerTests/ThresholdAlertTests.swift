import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// PROTOCOL §9.4's threshold alerts: a tracked device reports one, idempotently by its
/// `clientAlertID`; bad reports are refused and change nothing.
@Suite struct ThresholdAlertTests {
    static func body(_ id: UUID, category: String? = "gaming", logicalID: String? = nil, minutes: Int = 60, message: String = "An hour of games") -> String {
        var members = [#""clientAlertID":"\#(id.lowercased)""#, #""kind":"threshold""#, #""usedMinutes":\#(minutes)"#, #""message":"\#(message)""#]
        if let category { members.append(#""category":"\#(category)""#) }
        if let logicalID { members.append(#""logicalID":"\#(logicalID)""#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test func aDeviceReportsAThresholdOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, sibling) = try await server.pair(by: parent)
            let id = UUID()
            let first = try await server.send(.post, "/v1/alerts", credential: child.credential, json: Self.body(id))
            #expect(first.status == .created, "\(String(buffer: first.body))")
            let alert = try first.decode(AlertBody.self)
            #expect(alert.kind == "threshold" && alert.clientAlertID == id && alert.deviceId == child.deviceID && alert.usedMinutes == 60)
            #expect(alert.memberId == (try await server.memberID(of: child)))
            let again = try await server.send(.post, "/v1/alerts", credential: child.credential, json: Self.body(id))
            #expect(again.status == .ok)
            #expect(try again.decode(AlertBody.self) == alert)
            let other = try await server.send(.post, "/v1/alerts", credential: child.credential, json: Self.body(id, minutes: 90))
            #expect(other.status == .conflict && other.error?.field == "clientAlertID")
            // Another device's id space is its own.
            let siblings = try await server.send(.post, "/v1/alerts", credential: sibling.credential, json: Self.body(id))
            #expect(siblings.status == .created)
            #expect(try siblings.decode(AlertBody.self).alertID != alert.alertID)
            // The parent sees it among the member's alerts.
            let day = try #require(alert.date)
            let listed = try await server.send(.get, "/v1/members/\(alert.memberId.lowercased)/alerts?from=\(day)&to=\(day)", credential: parent.credential)
            #expect(try listed.decode(AlertList.self).alerts.map(\.alertID) == [alert.alertID])
        }
    }

    struct Bad: Sendable, CustomStringConvertible {
        var description: String
        var json: String
        var asParent = false
        var status: HTTPResponse.Status
        var field: String?
    }

    static let bad: [Bad] = [
        Bad(description: "a budget alert from a device", json: body(UUID()).replacingOccurrences(of: "\"threshold\"", with: "\"budget\""), status: .badRequest, field: "kind"),
        Bad(description: "both a category and a logicalID", json: body(UUID(), logicalID: "game"), status: .badRequest, field: "logicalID"),
        Bad(description: "neither a category nor a logicalID", json: body(UUID(), category: nil), status: .badRequest, field: "category"),
        Bad(description: "more minutes than a day has", json: body(UUID(), minutes: 1441), status: .badRequest, field: "usedMinutes"),
        Bad(description: "no message", json: body(UUID(), message: ""), status: .badRequest, field: "message"),
        Bad(description: "an unknown category", json: body(UUID(), category: "games"), status: .badRequest, field: "category"),
        Bad(description: "a family's own category without its record", json: body(UUID(), category: "x-unknown"), status: .badRequest, field: "category"),
        Bad(description: "a clientAlertID that is no UUID", json: #"{"clientAlertID":"a1","kind":"threshold","category":"gaming","usedMinutes":1,"message":"m"}"#, status: .badRequest, field: "clientAlertID"),
        Bad(description: "an unknown member", json: #"{"clientAlertID":"\#(UUID().lowercased)","kind":"threshold","category":"gaming","usedMinutes":1,"message":"m","level":3}"#, status: .badRequest, field: "level"),
        Bad(description: "an untracked parent device", json: body(UUID()), asParent: true, status: .forbidden, field: nil),
    ]

    @Test(arguments: bad)
    func isRefusedAndChangesNothing(_ bad: Bad) async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let before = try await server.fingerprint()
            let reply = try await server.send(.post, "/v1/alerts", credential: bad.asParent ? parent.credential : child.credential, json: bad.json)
            #expect(reply.status == bad.status, "\(String(buffer: reply.body))")
            if let field = bad.field { #expect(reply.error?.field == field, "\(String(buffer: reply.body))") }
            #expect(try await server.fingerprint() == before)
        }
    }
}
