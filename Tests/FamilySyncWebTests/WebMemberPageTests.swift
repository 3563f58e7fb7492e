import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
@testable import FamilySyncWeb
import Foundation
import Testing

/// A member's page: a child with an iPad and a Mac, a week of usage. The page's figures are the
/// API's (`GET /v1/members/{id}/summaries`); its forms dismiss an alert and block an app through
/// the API's own calls.
@Suite struct WebMemberPageTests {
    /// One session of `minutes` of `app`, `daysAgo` days before the test clock's now.
    static func upload(_ server: TestServer, _ device: TestDevice, _ app: String, _ category: String, minutes: Int, daysAgo: Int) async throws {
        let end = server.clock.now().addingTimeInterval(TimeInterval(-3600 - daysAgo * 86_400))
        let start = end.addingTimeInterval(TimeInterval(-minutes * 60))
        let record = UsageRecordBody(
            recordID: UUID().lowercased, logicalID: app, displayName: app.capitalized, category: category, sessionStart: start, sessionEnd: end,
            totalSeconds: minutes * 60
        )
        let reply = try await server.send(.post, "/v1/usage", credential: device.credential, body: UsageUploadRequest(timeZone: "UTC", records: [record]))
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
    }

    @Test func aMemberWithTwoDevicesShowsItsWeekAsTheAPIDoes() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, tablet) = try await server.pair(by: parent)
            let member = try await server.memberID(of: tablet)
            let mac = try await server.pair(into: member, by: parent, platform: .macos, timeZone: "UTC")
            for (device, app, category, minutes, daysAgo) in [
                (tablet, "khan", "learning", 130, 0), (mac, "duolingo", "learning", 60, 0), (mac, "brawl", "reward", 32, 0),
                (tablet, "khan", "learning", 45, 2), (mac, "brawl", "reward", 75, 5),
            ] {
                try await Self.upload(server, device, app, category, minutes: minutes, daysAgo: daysAgo)
            }
            let alert = try await server.send(
                .post, "/v1/alerts", credential: tablet.credential,
                body: ReportAlertRequest(clientAlertID: UUID(), category: "reward", usedMinutes: 30, message: "Half an hour of games")
            ).decode(AlertBody.self)

            // Bedtime and a games budget, in the member's zone.
            let zone = Member.zoneName(of: member)
            let budget = #"{"budgetID":"games","category":"reward","period":"daily","dailyMinutes":60,"alertAtPercent":[100],"enabled":true}"#
            for (type, name, fields) in [("Schedule", "schedule-bedtime", TestServer.bedtimeSchedule), ("Budget", "budget-games", budget)] {
                let reply = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: TestServer.forceReplace(type, name, fields))
                #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            }

            let browser = CookieBrowser(port: server.port)
            let pairing = try await WebDashboardTests.signIn(browser, server, by: parent)
            _ = try await server.send(.post, "/v1/pairings/\(pairing.id.lowercased)/confirm", credential: parent.credential)
            let family = try await browser.get("/app/")
            #expect(family.html.contains("href=\"/app/members/\(member.lowercased)\""))

            let page = try await browser.get("/app/members/\(member.lowercased)")
            #expect(page.status == 200, "\(page.html)")
            // The week table, day by day, against the API's summaries of the same days.
            let rows = page.html.matches(of: /<tr data-date="(\d{4}-\d{2}-\d{2})">.*?<td class="total" data-seconds="(\d+)">/.dotMatchesNewlines())
            let dates = rows.map { String($0.1) }
            #expect(dates.count == 7)
            let api = try await server.send(
                .get, "/v1/members/\(member.lowercased)/summaries?from=\(dates.first!)&to=\(dates.last!)", credential: parent.credential
            ).decode(MemberSummaryList.self).summaries
            let expected = dates.map { date in api.first { $0.date == date }?.totalSeconds ?? 0 }
            #expect(rows.map { Int($0.2)! } == expected)
            let uploaded = (130 + 60 + 32 + 45 + 75) * 60
            let inTheWeek = expected.reduce(0, +)
            #expect(inTheWeek == uploaded, "every upload is in the week")
            // The chart's bars carry the same totals, and text for a screen reader.
            let bars = page.html.matches(of: /<g class="bar" data-label="[^"]*" data-seconds="(\d+)">/).map { Int($0.1)! }
            #expect(bars.prefix(7) == expected[...])
            #expect(page.html.contains(#"role="img" aria-labelledby="week-chart-title week-chart-desc""#))
            // Today's platform split, as seed 000 writes it.
            let today = api.first { $0.date == dates.last! }
            let split = [DevicePlatform.ipados, .macos].map { platform in
                "\(WebController.platformLabel(platform)) \(BarChartSVG.duration(today?.byPlatform.first { $0.platform == platform }?.seconds ?? 0))"
            }.joined(separator: " | ")
            #expect(page.html.contains("Today: \(split)"), "\(split)")

            // The schedule as a line; the budget's minutes left are the API's.
            #expect(page.html.contains("<strong>Bedtime</strong> every day, 21:00–07:00: shields tiktok, youtube, Gaming"), "categories by their names")
            let status = try await server.send(.get, "/v1/members/\(member.lowercased)/budget-status?date=\(dates.last!)", credential: parent.credential)
                .decode(BudgetStatusResponse.self)
            let games = try #require(status.budgets.first { $0.budgetID == "games" })
            #expect(page.html.contains(#"<div class="row" data-budget="games"><p><strong>Reward</strong>: 60 min a day.\#nToday \#(games.remainingMinutes) min left of 60 min."#))

            // Dismissing the alert from the page dismisses it in the API.
            #expect(page.html.contains("Half an hour of games"))
            let dismissed = try await browser.post("/app/alerts/\(alert.alertID.lowercased)/dismiss")
            #expect(dismissed.status == 303 && dismissed.location == "/app/members/\(member.lowercased)")
            let alerts = try await server.send(
                .get, "/v1/members/\(member.lowercased)/alerts?from=\(dates.first!)&to=\(dates.last!)&includeDismissed=true", credential: parent.credential
            ).decode(AlertList.self).alerts
            #expect(alerts.first { $0.alertID == alert.alertID }?.dismissedAt != nil)
            #expect(try await browser.get("/app/members/\(member.lowercased)").html.contains("id=\"no-alerts\""))

            // Blocking an app sends the command to each of the member's devices.
            let blocked = try await browser.send("POST", "/app/members/\(member.lowercased)/apps", form: "csrf=\(browser.cookie(WebCookies.csrf)!)&app=brawl&action=block")
            #expect(blocked.status == 303)
            for device in [tablet, mac] {
                let commands = try await server.send(.get, "/v1/devices/\(device.deviceID.lowercased)/commands?status=pending", credential: parent.credential)
                    .decode(CommandList.self).commands
                #expect(commands.map(\.commandType) == ["block"])
                #expect(commands.first?.payload == ["logicalIDs": .array([.string("brawl")])])
            }
            // Until each device carries it out, the page says the block is on its way, per device.
            let pending = try await browser.get("/app/members/\(member.lowercased)").html
            #expect(pending.contains(#"<span class="state" data-state="blocking pending">"#), "the app's row")
            #expect(pending.contains(#"<span class="pending">block: brawl</span>"#), "the devices' rows")
        }
    }

    /// The Block button blocks its app, not the device, and Unblock lifts that app
    /// alone: the child's shield state, after it carries the commands out, says so.
    @Test func theBlockButtonBlocksItsAppAndUnblockLiftsOnlyThatApp() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let browser = CookieBrowser(port: server.port)
            let pairing = try await WebDashboardTests.signIn(browser, server, by: parent)
            _ = try await server.send(.post, "/v1/pairings/\(pairing.id.lowercased)/confirm", credential: parent.credential)

            /// The child takes its pending commands and carries them out.
            func carryOut() async throws {
                server.clock.advance(by: 1)
                for command in try await server.commands(of: child, as: child, status: "pending") {
                    #expect(try await server.report(command.commandId, #"{"status":"executed"}"#, by: child).status == .ok)
                }
            }
            func button(_ action: String, _ app: String) async throws {
                let reply = try await browser.send("POST", "/app/members/\(member.lowercased)/apps", form: "csrf=\(browser.cookie(WebCookies.csrf)!)&app=\(app)&action=\(action)")
                #expect(reply.status == 303)
                try await carryOut()
            }
            // Another app blocked through the SDK's payload, then brawl by the button.
            #expect(try await server.send(.post, "/v1/devices/\(child.deviceID.lowercased)/commands", credential: parent.credential, body: CreateCommandRequest.block(["chat"])).status == .created)
            try await carryOut()
            try await button("block", "brawl")
            let blocked = try await server.shieldState(of: child, as: child)
            #expect(blocked.blockedApps == ["brawl", "chat"] && !blocked.deviceBlocked, "\(blocked)")
            let carried = try await browser.get("/app/members/\(member.lowercased)").html
            #expect(carried.contains("blocked: brawl, chat"))
            #expect(!carried.contains(#"data-state="blocking pending""#), "carried out: no longer pending")
            #expect(!carried.contains(#"<span class="pending">"#))

            try await button("unblock", "brawl")
            let unblocked = try await server.shieldState(of: child, as: parent)
            #expect(unblocked.blockedApps == ["chat"] && !unblocked.deviceBlocked, "\(unblocked)")
        }
    }

    @Test func theChartsTextIsEscaped() {
        let svg = BarChartSVG(id: "c", title: "<b>&", description: "\"quoted\"", bars: [
            .init(label: "Tom's <day>", segments: [.init(series: "ios", label: "iOS", seconds: 4000)]),
        ]).render()
        #expect(svg.contains("<title id=\"c-title\">&lt;b&gt;&amp;</title>"))
        #expect(svg.contains("data-label=\"Tom&#39;s &lt;day&gt;\""))
        #expect(!svg.contains("<day>"))
        #expect(BarChartSVG.duration(7800) == "2h 10m" && BarChartSVG.duration(2700) == "45m" && BarChartSVG.duration(0) == "0m")
    }

    /// An app's state on a device: a block or unblock not yet carried out (the newest naming it,
    /// or the whole device) comes first; then what the device shields.
    @Test func anAppsStateOnADevice() throws {
        func command(_ type: String, _ apps: [String]?, at seconds: Int) throws -> CommandBody {
            let payload = apps.map { #"{"logicalIDs":[\#($0.map { "\"\($0)\"" }.joined(separator: ","))]}"# } ?? "{}"
            let json = #"{"commandId":"\#(UUID().lowercased)","targetDeviceId":"\#(UUID().lowercased)","commandType":"\#(type)","payload":\#(payload),"status":"pending","createdAt":"2026-11-26T10:00:0\#(seconds).000Z","createdBy":"\#(UUID().lowercased)","expiresAt":"2026-11-27T10:00:00.000Z"}"#
            return try WireCoding.makeDecoder().decode(CommandBody.self, from: Data(json.utf8))
        }
        let state = { (apps: [String], blocked: Bool) in
            try WireCoding.makeDecoder().decode(ShieldStateBody.self, from: Data(#"{"at":"2026-11-26T10:00:00.000Z","shielded":{"applications":[],"categories":[]},"allowOnly":null,"activeSchedules":[],"blockedApps":[\#(apps.map { "\"\($0)\"" }.joined(separator: ","))],"deviceBlocked":\#(blocked),"nextChangeAt":null,"upcomingSchedules":[]}"#.utf8))
        }
        #expect(WebController.appState("tiktok", shield: try state([], false), open: []) == "unblocked")
        #expect(WebController.appState("tiktok", shield: try state(["tiktok"], false), open: []) == "blocked")
        #expect(WebController.appState("tiktok", shield: try state([], true), open: []) == "blocked")
        #expect(WebController.appState("tiktok", shield: try state([], false), open: [try command("block", ["tiktok"], at: 1)]) == "blocking pending")
        #expect(WebController.appState("tiktok", shield: try state([], false), open: [try command("block", ["brawl"], at: 1)]) == "unblocked")
        #expect(WebController.appState("tiktok", shield: try state(["tiktok"], false), open: [try command("block", nil, at: 1), try command("unblock", ["tiktok"], at: 2)]) == "unblocking pending")
        #expect(WebController.commandText(try command("block", nil, at: 1)) == "block: the whole device")
        #expect(WebController.commandText(try command("request_sync", nil, at: 1)) == "request sync")
    }
}
