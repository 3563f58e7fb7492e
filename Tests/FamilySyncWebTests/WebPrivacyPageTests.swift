import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
@testable import FamilySyncWeb
import Foundation
import Testing

/// `/app/privacy` (§15): a parent's browser sets retention with the page's form, sees its own
/// change in the audit log under the browser's name, and downloads the family's archive.
@Suite struct WebPrivacyPageTests {
    @Test func aBrowserSetsRetentionReadsTheAuditLogAndDownloads() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let browser = try await WebDashboardTests.signedIn(server, by: parent)
            let csrf = try #require(browser.cookie(WebCookies.csrf))
            let page = try await browser.get("/app/privacy")
            #expect(page.status == 200 && page.html.contains("id=\"days-usageSessions\"") && page.html.contains("placeholder=\"400\""), "\(page.html)")

            let saved = try await browser.send("POST", "/app/privacy/retention", form: "csrf=\(csrf)&usageSessions=30&alerts=&audit=90")
            #expect(saved.status == 303 && saved.location == "/app/privacy?saved=1")
            let retention = try await server.send(.get, "/v1/families/me/retention", credential: parent.credential).decode(RetentionBody.self)
            #expect(retention.days["usageSessions"] == 30 && retention.days["audit"] == 90 && retention.familySet.sorted() == ["audit", "usageSessions"])
            let after = try await browser.get("/app/privacy?saved=1")
            #expect(after.html.contains("id=\"saved\"") && after.html.contains("value=\"30\""))
            #expect(after.html.contains("retention.set") && after.html.contains("Chrome on Linux"), "the browser's change, under its name")

            // What the server refuses is a page naming the reason, and changes nothing.
            let before = try await server.fingerprint()
            // Each reason beside the field it is about, what was typed kept.
            for (kind, typed, reason) in [("usageSessions", "0", "between 1 and 400"), ("usageSessions", "ten", "a whole number of days"), ("health", "401", "between 1 and 400")] {
                let refused = try await browser.send("POST", "/app/privacy/retention", form: "csrf=\(csrf)&\(kind)=\(typed)")
                #expect(refused.status == 400 && refused.html.contains(reason), "\(kind)=\(typed): \(refused.html)")
                #expect(refused.html.contains("id=\"error-\(kind)\"") && refused.html.contains("name=\"\(kind)\" value=\"\(typed)\""), "\(refused.html)")
            }
            #expect(try await browser.send("POST", "/app/privacy/retention", form: "usageSessions=3").status == 403)
            #expect(try await server.fingerprint() == before)

            let download = try await browser.get("/app/privacy/export?member=\(member.lowercased)")
            #expect(download.status == 200 && download.header("content-type") == "application/x-tar")
            #expect(download.header("content-disposition")?.contains("familysync-member-\(member.lowercased)") == true)
            #expect(download.html.hasPrefix("manifest.json"))
            let unknown = try await browser.get("/app/privacy/export?member=\(UUID().lowercased)")
            #expect(unknown.status == 404 && unknown.header("content-type")?.hasPrefix("text/html") == true)
        }
    }
}
