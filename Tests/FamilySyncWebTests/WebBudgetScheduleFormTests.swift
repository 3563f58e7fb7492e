import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
@testable import FamilySyncWeb
import Foundation
import Testing

/// A parent's browser creates, edits and deletes a member's budgets and schedules with the page's
/// forms: what it saves is what the API then answers, a schedule shields the child's device, and
/// a refused form comes back with the reason beside its field, as typed, having changed nothing.
@Suite struct WebBudgetScheduleFormTests {
    static func budgets(_ server: TestServer, _ member: UUID, as parent: TestDevice) async throws -> [Budget] {
        let zone = Member.zoneName(of: member)
        let reply = try await server.send(.post, "/v1/zones/\(zone)/records/query", credential: parent.credential, body: QueryRecordsRequest(recordType: "Budget"))
        return try reply.decode(QueryRecordsResponse.self).records.compactMap { $0.fields.flatMap(Budget.init(fields:)) }
    }

    /// A parent, its child, the child's member (lowercased), and the parent's signed-in browser
    /// with its form token.
    static func family(_ server: TestServer) async throws -> (TestDevice, TestDevice, String, CookieBrowser, String) {
        let parent = try await server.createFamily()
        let (_, child) = try await server.pair(by: parent)
        let member = try await server.memberID(of: child).lowercased
        let browser = try await WebDashboardTests.signedIn(server, by: parent)
        return (parent, child, member, browser, try #require(browser.cookie(WebCookies.csrf)))
    }

    @Test func aParentManagesBudgetsOnThePage() async throws {
        try await withTestServer { server in
            let (parent, _, member, browser, csrf) = try await Self.family(server)

            let blank = try await browser.get("/app/members/\(member)/budgets/new")
            #expect(blank.status == 200 && blank.html.contains("id=\"dailyMinutes\"") && blank.html.contains("÷ 30 ="), "\(blank.html)")

            // Refused by the server (§9.3: at most 1440 a day), and by the page (not a number): the
            // form again, the reason beside the field, what was typed kept, nothing written.
            let before = try await server.fingerprint()
            let refused = try await browser.send("POST", "/app/members/\(member)/budgets", form: "csrf=\(csrf)&category=gaming&period=daily&dailyMinutes=2000&alertAtPercent=80&enabled=on")
            #expect(refused.status == 400, "\(refused.html)")
            #expect(refused.html.contains("id=\"error-dailyMinutes\"") && refused.html.contains("value=\"2000\"") && refused.html.contains("<option value=\"gaming\" selected>"))
            #expect(refused.html.contains("aria-invalid=\"true\" aria-describedby=\"error-dailyMinutes\""))
            #expect(!refused.html.contains("data-live=") && refused.html.contains("name=\"back\" value=\"/app/members/\(member)/budgets/new\""))
            let words = try await browser.send("POST", "/app/members/\(member)/budgets", form: "csrf=\(csrf)&category=*&period=daily&dailyMinutes=ten&enabled=on")
            #expect(words.status == 400 && words.html.contains("id=\"error-dailyMinutes\"") && words.html.contains("value=\"ten\""))
            let percents = try await browser.send("POST", "/app/members/\(member)/budgets", form: "csrf=\(csrf)&category=*&period=monthly&monthlyHours=30&alertAtPercent=eighty")
            #expect(percents.status == 400 && percents.html.contains("id=\"error-alertAtPercent\""))
            let category = try await browser.send("POST", "/app/members/\(member)/budgets", form: "csrf=\(csrf)&category=x-nothing&period=daily&dailyMinutes=60&enabled=on")
            #expect(category.status == 400 && category.html.contains("id=\"error-category\""), "\(category.html)")
            #expect(try await browser.send("POST", "/app/members/\(member)/budgets", form: "category=*&period=daily&dailyMinutes=60").status == 403)
            #expect(try await server.fingerprint() == before)

            // Created: two hours a day of all screen time, three on Saturdays.
            let created = try await browser.send("POST", "/app/members/\(member)/budgets", form: "csrf=\(csrf)&category=*&period=daily&dailyMinutes=120&sat=180&alertAtPercent=80%2C+100&enabled=on")
            #expect(created.status == 303 && created.location == "/app/members/\(member)#budgets", "\(created.html)")
            var stored = try await Self.budgets(server, UUID(uuidString: member)!, as: parent)
            #expect(stored == [Budget(budgetID: "all", scope: .all, period: .daily, dailyMinutes: 120, weekdayMinutes: ["sat": 180], alertAtPercent: [80, 100])])
            let page = try await browser.get("/app/members/\(member)")
            #expect(page.html.contains("data-budget=\"all\"") && page.html.contains("120 min a day, Sat 180 min") && page.html.contains("id=\"edit-budget-all\""))

            // Edited into a monthly budget: the form shows what is stored, the page the formula's minutes.
            let edit = try await browser.get("/app/members/\(member)/budgets/all")
            #expect(edit.html.contains("value=\"120\"") && edit.html.contains("id=\"minutes-sat\" name=\"sat\" value=\"180\""))
            let monthly = try await browser.send("POST", "/app/members/\(member)/budgets", form: "csrf=\(csrf)&budgetID=all&category=*&period=monthly&dailyMinutes=120&sat=180&monthlyHours=30&alertAtPercent=100&enabled=on")
            #expect(monthly.status == 303, "\(monthly.html)")
            stored = try await Self.budgets(server, UUID(uuidString: member)!, as: parent)
            #expect(stored.map(\.period) == [.monthly] && stored.first?.monthlyHours == 30 && stored.first?.dailyMinutes == nil)
            #expect(try await browser.get("/app/members/\(member)").html.contains("30 h a month ("))

            // A second budget for the same scope gets an id of its own, not the first's.
            _ = try await browser.send("POST", "/app/members/\(member)/budgets", form: "csrf=\(csrf)&category=*&period=daily&dailyMinutes=90&enabled=on")
            #expect(try await Self.budgets(server, UUID(uuidString: member)!, as: parent).count == 2)

            let deleted = try await browser.send("POST", "/app/members/\(member)/budgets/all/delete", form: "csrf=\(csrf)")
            #expect(deleted.status == 303)
            #expect(try await Self.budgets(server, UUID(uuidString: member)!, as: parent).map(\.budgetID).contains("all") == false)
            let gone = try await browser.get("/app/members/\(member)/budgets/all")
            #expect(gone.status == 404 && gone.header("content-type")?.hasPrefix("text/html") == true)
        }
    }

    @Test func aParentManagesSchedulesOnThePageAndTheChildIsShielded() async throws {
        try await withTestServer { server in
            let (parent, child, member, browser, csrf) = try await Self.family(server)

            let blank = try await browser.get("/app/members/\(member)/schedules/new")
            #expect(blank.status == 200 && blank.html.contains("time zone (America/Chicago)") && blank.html.contains("value=\"21:00\""), "\(blank.html)")

            let before = try await server.fingerprint()
            let form = "csrf=\(csrf)&name=School+nights&weekdays%5B%5D=1&weekdays%5B%5D=2&weekdays%5B%5D=3&weekdays%5B%5D=4&weekdays%5B%5D=7&mode=shield&applications=tiktok&categories%5B%5D=gaming&warningTimeMinutes=5&enabled=on"
            let badTime = try await browser.send("POST", "/app/members/\(member)/schedules", form: form + "&intervalStart=25%3A00&intervalEnd=07%3A00")
            #expect(badTime.status == 400 && badTime.html.contains("id=\"error-intervalStart\""), "\(badTime.html)")
            #expect(badTime.html.contains("value=\"School nights\"") && badTime.html.contains("id=\"day-7\" checked") && badTime.html.contains("id=\"category-gaming\" checked"))
            let noDays = try await browser.send("POST", "/app/members/\(member)/schedules", form: "csrf=\(csrf)&name=Never&intervalStart=21%3A00&intervalEnd=07%3A00&mode=shield")
            #expect(noDays.status == 400 && noDays.html.contains("id=\"error-weekdays\""))
            let noName = try await browser.send("POST", "/app/members/\(member)/schedules", form: form.replacingOccurrences(of: "School+nights", with: "") + "&intervalStart=21%3A00&intervalEnd=07%3A00")
            #expect(noName.status == 400 && noName.html.contains("id=\"error-name\""), "\(noName.html)")
            #expect(try await server.fingerprint() == before)

            let created = try await browser.send("POST", "/app/members/\(member)/schedules", form: form + "&intervalStart=21%3A00&intervalEnd=07%3A00")
            #expect(created.status == 303 && created.location == "/app/members/\(member)#schedules", "\(created.html)")
            // Its effect, through the API: the child (in Chicago, UTC-6) is shielded on a Sunday night
            // past midnight, not at noon.
            let night = try await server.shieldState(of: child, as: parent, at: "2026-11-30T08:00:00Z")
            #expect(night.activeSchedules.map(\.scheduleID) == ["school-nights"] && night.shielded.applications == ["tiktok"] && night.shielded.categories == ["gaming"])
            #expect(try await server.shieldState(of: child, as: parent, at: "2026-11-30T18:00:00Z").activeSchedules.isEmpty)
            let page = try await browser.get("/app/members/\(member)")
            #expect(page.html.contains("data-schedule=\"school-nights\"") && page.html.contains("21:00–07:00"))

            // Edited: a Friday night only, allowing only Khan Academy.
            let edit = try await browser.get("/app/members/\(member)/schedules/school-nights")
            #expect(edit.html.contains("value=\"tiktok\"") && edit.html.contains("id=\"day-7\" checked") && !edit.html.contains("id=\"day-5\" checked"))
            let friday = "csrf=\(csrf)&scheduleID=school-nights&name=Friday&weekdays%5B%5D=5&intervalStart=22%3A30&intervalEnd=23%3A30&mode=allowOnly&applications=khan&enabled=on"
            #expect(try await browser.send("POST", "/app/members/\(member)/schedules", form: friday).status == 303)
            let fridayNight = try await server.shieldState(of: child, as: parent, at: "2026-11-28T05:00:00Z")
            #expect(fridayNight.allowOnly?.applications == ["khan"] && fridayNight.activeSchedules.map(\.name) == ["Friday"])

            #expect(try await browser.send("POST", "/app/members/\(member)/schedules/school-nights/delete", form: "csrf=\(csrf)").status == 303)
            #expect(try await server.shieldState(of: child, as: parent, at: "2026-11-28T05:00:00Z").activeSchedules.isEmpty)
            let missing = try await browser.send("POST", "/app/members/\(member)/schedules/school-nights/delete", form: "csrf=\(csrf)")
            #expect(missing.status == 404)

            // A schedule named "New" does not take the empty form's address.
            let named = try await browser.send("POST", "/app/members/\(member)/schedules", form: "csrf=\(csrf)&name=New&weekdays%5B%5D=1&intervalStart=20%3A00&intervalEnd=21%3A00&mode=shield&enabled=on")
            #expect(named.status == 303)
            let listed = try await browser.get("/app/members/\(member)")
            let id = try #require(listed.html.firstMatch(of: /data-schedule="(new-[0-9a-f]{8})"/)?.1, "\(listed.html)")
            #expect(try await browser.get("/app/members/\(member)/schedules/\(id)").html.contains("value=\"New\""))
        }
    }
}
