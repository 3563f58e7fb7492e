import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
@testable import FamilySyncWeb
import Foundation
import Testing

/// A member's settings on the page: its name, its parent PIN, its devices moved or revoked; and
/// a parent named after its first device, asked for a name once.
@Suite struct WebMemberSettingsTests {
    @Test func aParentNamedAfterItsDeviceIsAskedOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let browser = try await WebDashboardTests.signedIn(server, by: parent)
            let csrf = try #require(browser.cookie(WebCookies.csrf))
            let family = try await browser.get("/app/")
            #expect(family.html.contains("id=\"ask-name\"") && family.html.contains("You are named after the device you started with: Mom&#39;s iPhone"), "\(family.html)")
            let mom = try await server.memberID(of: parent).lowercased

            // Kept: the page asks no more, and nothing is renamed.
            let kept = try await browser.send("POST", "/app/members/\(mom)/name", form: "csrf=\(csrf)&back=family&name=&keep=1")
            #expect(kept.status == 303 && kept.location == "/app/")
            #expect(!(try await browser.get("/app/").html.contains("id=\"ask-name\"")))
            let members = try await server.send(.get, "/v1/members", credential: parent.credential).decode(MemberList.self).members
            #expect(members.map(\.name) == ["Mom's iPhone"])

            // Another browser of the same parent is asked, and answers.
            let second = try await WebDashboardTests.signedIn(server, by: parent)
            let token = try #require(second.cookie(WebCookies.csrf))
            #expect(try await second.get("/app/").html.contains("id=\"ask-name\""))
            let named = try await second.send("POST", "/app/members/\(mom)/name", form: "csrf=\(token)&back=family&name=Mom")
            #expect(named.status == 303 && named.location == "/app/")
            #expect(try await server.send(.get, "/v1/members", credential: parent.credential).decode(MemberList.self).members.map(\.name) == ["Mom"])
            #expect(!(try await second.get("/app/").html.contains("id=\"ask-name\"")), "a person's name is no device's")
        }
    }

    @Test func nameAndPINOnThePage() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let browser = try await WebDashboardTests.signedIn(server, by: parent)
            let csrf = try #require(browser.cookie(WebCookies.csrf))
            let base = "/app/members/\(member.lowercased)"
            let page = try await browser.get("\(base)/settings")
            #expect(page.status == 200 && page.html.contains("No PIN is set.") && page.html.contains("id=\"set-pin\""), "\(page.html)")

            let before = try await server.fingerprint()
            let empty = try await browser.send("POST", "\(base)/name", form: "csrf=\(csrf)&name=+")
            #expect(empty.status == 400 && empty.html.contains("id=\"error-name\""), "\(empty.html)")
            let badPIN = try await browser.send("POST", "\(base)/pin", form: "csrf=\(csrf)&action=set&pin=12a4")
            #expect(badPIN.status == 400 && badPIN.html.contains("id=\"error-pin\"") && !badPIN.html.contains("12a4"), "\(badPIN.html)")
            // The refused form answers a POST: not live, and the language switch comes back to the settings.
            #expect(!badPIN.html.contains("data-live=") && badPIN.html.contains("name=\"back\" value=\"\(base)/settings\""))
            let noAction = try await browser.send("POST", "\(base)/pin", form: "csrf=\(csrf)&pin=2468")
            #expect(noAction.status == 400 && !noAction.html.contains("2468"))
            // Clearing where none is set (a second press) leaves what clearing leaves.
            let noPIN = try await browser.send("POST", "\(base)/pin", form: "csrf=\(csrf)&action=clear")
            #expect(noPIN.status == 303 && noPIN.location == "\(base)/settings?done=pin-clear")
            #expect(try await browser.send("POST", "\(base)/pin", form: "action=set&pin=2468").status == 403)
            #expect(try await server.fingerprint() == before)

            #expect(try await browser.send("POST", "\(base)/name", form: "csrf=\(csrf)&name=Johnny+B").location == "\(base)/settings?done=name")
            #expect(try await server.send(.get, "/v1/members", credential: parent.credential).decode(MemberList.self).members.contains { $0.name == "Johnny B" })

            let set = try await browser.send("POST", "\(base)/pin", form: "csrf=\(csrf)&action=set&pin=2468")
            #expect(set.status == 303 && set.location == "\(base)/settings?done=pin-set")
            let verified = try await server.send(.post, "/v1/members/\(member.lowercased)/pin/verify", credential: child.credential, json: #"{"pin":"2468"}"#)
            #expect(try verified.decode(VerifyParentPINResponse.self).valid)
            let withPIN = try await browser.get("\(base)/settings?done=pin-set")
            #expect(withPIN.html.contains("A PIN is set") && withPIN.html.contains("id=\"clear-pin\"") && withPIN.html.contains("id=\"done\"") && !withPIN.html.contains("2468"))
            #expect(try await browser.send("POST", "\(base)/pin", form: "csrf=\(csrf)&action=clear").status == 303)
            let cleared = try await server.send(.post, "/v1/members/\(member.lowercased)/pin/verify", credential: child.credential, json: #"{"pin":"2468"}"#)
            #expect(cleared.status == .notFound)
        }
    }

    @Test func devicesMovedAndRevokedOnThePage() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let mac = try await server.pair(into: member, by: parent, platform: .macos, timeZone: "UTC")
            let sister = try await server.send(.post, "/v1/members", credential: parent.credential, body: CreateMemberRequest(name: "Emma", role: .child)).decode(MemberBody.self)
            let browser = try await WebDashboardTests.signedIn(server, by: parent)
            let csrf = try #require(browser.cookie(WebCookies.csrf))
            let base = "/app/members/\(member.lowercased)"
            let page = try await browser.get("\(base)/settings")
            #expect(page.html.contains("<option value=\"\(sister.id.lowercased)\">Emma</option>") && !page.html.contains(">Mom&#39;s iPhone</option>"), "\(page.html)")

            // Refused: a parent's member (409, §8), and no member at all; the page says why, nothing moves.
            let before = try await server.fingerprint()
            let mom = try await server.memberID(of: parent)
            let toParent = try await browser.send("POST", "/app/devices/\(mac.deviceID.lowercased)/move", form: "csrf=\(csrf)&member=\(mom.lowercased)")
            #expect(toParent.status == 409 && toParent.html.contains("id=\"form-error\""), "\(toParent.html)")
            let nobody = try await browser.send("POST", "/app/devices/\(mac.deviceID.lowercased)/move", form: "csrf=\(csrf)&member=nobody")
            #expect(nobody.status == 400)
            #expect(try await server.fingerprint() == before)

            let moved = try await browser.send("POST", "/app/devices/\(mac.deviceID.lowercased)/move", form: "csrf=\(csrf)&member=\(sister.id.lowercased)")
            #expect(moved.status == 303 && moved.location == "\(base)/settings?done=moved", "\(moved.html)")
            #expect(try await server.memberID(of: mac) == sister.id)

            let revoked = try await browser.send("POST", "/app/devices/\(child.deviceID.lowercased)/revoke", form: "csrf=\(csrf)")
            #expect(revoked.status == 303 && revoked.location == "\(base)/settings?done=revoked")
            #expect(try await server.send(.get, "/v1/devices/me", credential: child.credential).status == .unauthorized)
            // The browser itself signs out instead.
            let me = try #require(try await server.send(.get, "/v1/devices", credential: parent.credential).decode(DeviceList.self).devices.first { $0.platform == .web })
            let itself = try await browser.send("POST", "/app/devices/\(me.id.lowercased)/revoke", form: "csrf=\(csrf)")
            #expect(itself.status == 409 && itself.html.contains("sign out instead"))
        }
    }
}

/// The family's settings page: its own categories and a new recovery code.
@Suite struct WebFamilySettingsTests {
    @Test func categoriesAndARecoveryCodeOnThePage() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let browser = try await WebDashboardTests.signedIn(server, by: parent)
            let csrf = try #require(browser.cookie(WebCookies.csrf))
            let page = try await browser.get("/app/family")
            #expect(page.status == 200 && page.html.contains("data-category=\"social_media\"") && page.html.contains("value=\"x-\""), "\(page.html)")

            let before = try await server.fingerprint()
            let badID = try await browser.send("POST", "/app/family/categories", form: "csrf=\(csrf)&id=x-Chores&displayName=Chores&kind=learning")
            #expect(badID.status == 400 && badID.html.contains("id=\"error-id\"") && badID.html.contains("value=\"x-Chores\"") && badID.html.contains("<option value=\"learning\" selected>"), "\(badID.html)")
            let kindChanged = try await browser.send("POST", "/app/family/categories", form: "csrf=\(csrf)&id=gaming&displayName=Games&kind=reward")
            #expect(kindChanged.status == 400 && kindChanged.html.contains("id=\"error-kind\""), "\(kindChanged.html)")
            let noName = try await browser.send("POST", "/app/family/categories", form: "csrf=\(csrf)&id=x-chores&displayName=&kind=learning")
            #expect(noName.status == 400 && noName.html.contains("id=\"error-displayName\""), "\(noName.html)")
            #expect(try await server.fingerprint() == before)

            let saved = try await browser.send("POST", "/app/family/categories", form: "csrf=\(csrf)&id=x-chores&displayName=Chores&kind=learning&defaultDailyMinutes=30")
            #expect(saved.status == 303 && saved.location == "/app/family?saved=1#categories", "\(saved.html)")
            let categories = try await server.send(.post, "/v1/zones/family/records/query", credential: parent.credential, body: QueryRecordsRequest(recordType: "Category"))
                .decode(QueryRecordsResponse.self).records.compactMap(\.fields)
            #expect(categories.contains { $0["id"] == .string("x-chores") && $0["kind"] == .string("learning") && $0["defaultDailyMinutes"] == .number(30) })
            #expect(try await browser.get("/app/family").html.contains("<tr data-category=\"x-chores\"><td>Chores</td>"))

            // A new recovery code: shown once, in the answer's page only; the old one stops working.
            let first = try await server.send(.post, "/v1/families/me/recovery-code", credential: parent.credential).decode(RecoveryCodeResponse.self).recoveryCode
            let issued = try await browser.send("POST", "/app/family/recovery-code", form: "csrf=\(csrf)")
            #expect(issued.status == 200 && issued.header("cache-control") == "no-store")
            let code = try #require(issued.html.firstMatch(of: /<p class="code" id="recovery-code">([^<]+)<\/p>/)?.1)
            #expect(code != first)
            #expect(!(try await browser.get("/app/family").html.contains(String(code))))
            let device = #"{"name":"New phone","platform":"ios","timeZone":"UTC"}"#
            let stale = try await server.send(.post, "/v1/families/recover", json: #"{"recoveryCode":"\#(first)","device":\#(device)}"#)
            #expect(stale.status == .notFound)
            let recovered = try await server.send(.post, "/v1/families/recover", json: #"{"recoveryCode":"\#(code)","device":\#(device)}"#)
            #expect(recovered.status == .created, "\(String(buffer: recovered.body))")
        }
    }
}
