import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
@testable import FamilySyncWeb
import Foundation
import Testing

/// An app's page: its category and points sent to each of the member's child devices as their
/// `AppConfiguration` (§7.1's `update_config`), and blocking it on one device or on all.
@Suite struct WebAppPageTests {
    static func configuration(_ server: TestServer, _ app: String, on device: TestDevice, as parent: TestDevice) async throws -> [String: JSONValue]? {
        let zone = Device.zoneName(forChild: device.deviceID)
        let query = QueryRecordsRequest(recordType: "AppConfiguration", filterBy: [.init(fieldName: "logicalID", comparator: .equals, value: .string(app))])
        return try await server.send(.post, "/v1/zones/\(zone)/records/query", credential: parent.credential, body: query).decode(QueryRecordsResponse.self).records.first?.fields
    }

    static func pending(_ server: TestServer, _ device: TestDevice, as parent: TestDevice) async throws -> [CommandBody] {
        try await server.send(.get, "/v1/devices/\(device.deviceID.lowercased)/commands?status=pending", credential: parent.credential).decode(CommandList.self).commands
    }

    @Test func anAppsCategoryPointsAndBlockingOnEachDevice() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, tablet) = try await server.pair(by: parent)
            let member = try await server.memberID(of: tablet)
            let mac = try await server.pair(into: member, by: parent, platform: .macos, timeZone: "UTC")
            try await WebMemberPageTests.upload(server, tablet, "com.supercell.brawl", "reward", minutes: 30, daysAgo: 0)
            let browser = try await WebDashboardTests.signedIn(server, by: parent)
            let csrf = try #require(browser.cookie(WebCookies.csrf))
            let base = "/app/members/\(member.lowercased)"

            #expect(try await browser.get(base).html.contains("href=\"\(base)/apps/com.supercell.brawl\""))
            let page = try await browser.get("\(base)/apps/com.supercell.brawl")
            #expect(page.status == 200 && page.html.contains("<option value=\"reward\" selected>"), "\(page.html)")
            #expect(page.html.matches(of: /data-state="unblocked"/).count == 2)

            // Refused (points are 0–1000): as typed, beside the field, nothing sent.
            let before = try await server.fingerprint()
            let refused = try await browser.send("POST", "\(base)/apps/com.supercell.brawl", form: "csrf=\(csrf)&category=learning&pointsPerMinute=5000")
            #expect(refused.status == 400 && refused.html.contains("id=\"error-pointsPerMinute\"") && refused.html.contains("value=\"5000\""), "\(refused.html)")
            #expect(refused.html.contains("<option value=\"learning\" selected>"))
            let unknown = try await browser.send("POST", "\(base)/apps/com.supercell.brawl", form: "csrf=\(csrf)&category=x-none&pointsPerMinute=1")
            #expect(unknown.status == 400 && unknown.html.contains("id=\"error-category\""), "\(unknown.html)")
            #expect(try await server.fingerprint() == before)

            // Saved: each child device holds the app's configuration, carried by an update_config.
            let saved = try await browser.send("POST", "\(base)/apps/com.supercell.brawl", form: "csrf=\(csrf)&category=learning&pointsPerMinute=2")
            #expect(saved.status == 303 && saved.location == "\(base)/apps/com.supercell.brawl?saved=1", "\(saved.html)")
            for device in [tablet, mac] {
                let fields = try #require(try await Self.configuration(server, "com.supercell.brawl", on: device, as: parent))
                #expect(fields["category"] == .string("learning") && fields["pointsPerMinute"] == .number(2) && fields["blockingEnabled"] == .bool(false))
                #expect(try await Self.pending(server, device, as: parent).map(\.commandType) == ["update_config"])
            }
            let after = try await browser.get("\(base)/apps/com.supercell.brawl?saved=1")
            #expect(after.html.contains("id=\"saved\"") && after.html.contains("value=\"2\""))

            // Blocked on the Mac only: pending there, nothing new on the iPad.
            let blocked = try await browser.send(
                "POST", "\(base)/apps", form: "csrf=\(csrf)&app=com.supercell.brawl&action=block&device=\(mac.deviceID.lowercased)&back=app"
            )
            #expect(blocked.status == 303 && blocked.location == "\(base)/apps/com.supercell.brawl")
            #expect(try await Self.pending(server, mac, as: parent).map(\.commandType).sorted() == ["block", "update_config"])
            #expect(try await Self.pending(server, tablet, as: parent).map(\.commandType) == ["update_config"])
            let states = try await browser.get("\(base)/apps/com.supercell.brawl").html
            #expect(states.contains("<tr data-device=\"\(mac.deviceID.lowercased)\"><td>macos device</td><td><span class=\"state\" data-state=\"blocking pending\">"), "\(states)")
            #expect(states.contains("<tr data-device=\"\(tablet.deviceID.lowercased)\"><td>Johnny&#39;s iPad</td><td><span class=\"state\" data-state=\"unblocked\">"), "\(states)")

            // A device of another member, or none at all, is refused.
            let stranger = try await browser.send("POST", "\(base)/apps", form: "csrf=\(csrf)&app=x&action=block&device=\(parent.deviceID.lowercased)")
            #expect(stranger.status == 404)
            let bad = try await browser.send("POST", "\(base)/apps", form: "csrf=\(csrf)&app=x&action=block&device=nope")
            #expect(bad.status == 400 && bad.html.contains("device"))
        }
    }
}
