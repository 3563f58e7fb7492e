import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
@testable import FamilySyncWeb
import Foundation
import Testing

/// `/app/live` and `/app/live.js`: a page carries the family's change token as it was read; the
/// poll from it answers at once when a write came after, and a page without a session gets none.
@Suite struct WebLiveTests {
    @Test func aPagesTokenWakesOnTheNextWrite() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let browser = try await WebDashboardTests.signedIn(server, by: parent)
            let page = try await browser.get("/app/members/\(member.lowercased)")
            let token = try #require(page.html.firstMatch(of: /<body data-live="([^"]+)">/)?.1, "\(page.html.prefix(800))")
            #expect(page.html.contains("<script src=\"/app/live.js\" defer></script>"))

            // A write after the page was read: the poll from its token answers at once.
            let zone = Member.zoneName(of: member)
            let budget = #"{"budgetID":"all","category":"*","period":"daily","dailyMinutes":60,"enabled":true}"#
            let wrote = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: TestServer.forceReplace("Budget", "budget-all", budget))
            #expect(wrote.status == .ok)
            let live = try await browser.get("/app/live?since=\(token)")
            #expect(live.status == 200 && live.header("content-type") == "application/json", "\(live.html)")
            let answer = try JSONSerialization.jsonObject(with: Data(live.html.utf8)) as? [String: Any]
            #expect(answer?["changed"] as? Bool == true && (answer?["changeToken"] as? String).map { $0 != String(token) } == true, "\(live.html)")

            let script = try await browser.get("/app/live.js")
            #expect(script.status == 200 && script.header("content-type") == "text/javascript; charset=utf-8" && script.html.contains("/app/live?since="))
            #expect(script.header("content-security-policy")?.contains("connect-src 'self'") == true)

            // A bad token is §1.1's 400, as a page; no session, 401.
            let bad = try await browser.get("/app/live?since=nonsense")
            #expect(bad.status == 400 && bad.header("content-type")?.hasPrefix("text/html") == true)
            #expect(try await CookieBrowser(port: server.port).get("/app/live").status == 401)
            // A form page is not live: what is typed there stays.
            #expect(!(try await browser.get("/app/members/\(member.lowercased)/budgets/new").html.contains("data-live=")))
        }
    }
}
