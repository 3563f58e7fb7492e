import FamilySyncTestSupport
import Foundation
import Testing

extension ReliabilitySuites {
    /// Managing a family in a real browser: a parent creates a budget (first refused, the reason beside the
    /// field) and a schedule on the page and sees their effect through the API and the child's
    /// shield state; a CLI write shows on the open page without a reload; the pages pass axe-core's
    /// WCAG A/AA rules at a laptop's width and a phone's, and work by keyboard. Screenshots go to
    /// test-artifacts/dashboard/.
    @Suite(.timeLimit(.minutes(3))) struct DashboardManageBrowserTests {
        static let artifacts = DashboardBrowserTests.artifacts

        /// Signs the browser in by the code it shows, taken and confirmed by the CLI's `mom`.
        static func signIn(_ browser: HeadlessChromium, _ cli: CLISession) async throws {
            try await browser.open(cli.baseURL + "/app/")
            try await browser.click("#start")
            let code = try await browser.text("#code")
            try await cli.ok(["pair", "sign-in", code, "--profile", "mom"])
            _ = try await browser.element("#emoji")
            try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])
            _ = try await browser.element("#members")
        }

        /// No violation of axe-core's WCAG rules on the page the browser shows.
        static func expectAccessible(_ browser: HeadlessChromium, _ what: String) async throws {
            let violations = try await browser.accessibilityViolations()
            #expect(violations.isEmpty, "\(what): \(violations)")
        }

        /// Sets a form's field as typing would leave it.
        static func fill(_ browser: HeadlessChromium, _ values: [String: String]) async throws {
            for (id, value) in values {
                let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
                _ = try await browser.run("document.getElementById('\(id)').value = '\(escaped)'; return true;")
            }
        }

        @Test func aParentRunsTheFamilyFromThePage() async throws {
            try await withCLISession { cli in
                try await ClientCommandTests.pairedFamily(cli)
                try DashboardBrowserTests.usageCSV([("khan", "Khan Academy", "learning", 70, 0), ("brawl", "Brawl Stars", "reward", 45, 1)])
                    .write(toFile: cli.directory + "/ipad.csv", atomically: true, encoding: .utf8)
                try await cli.ok(["usage", "upload", "ipad.csv", "--profile", "johnny"])
                try await cli.ok(["health", "report", "--sequence", "4", "--memory-mb", "4.1", "--error", "record_usage:intervalDidStart:disk full", "--profile", "johnny"])
                let johnny = try #require(try await DashboardBrowserTests.api(cli, "GET", "/v1/devices/me", as: "johnny") as? [String: Any])
                let childDevice = try #require(johnny["id"] as? String)
                let member = try #require(johnny["memberId"] as? String)

                let browser = try await HeadlessChromium.start(directory: cli.directory)
                do {
                    try await Self.signIn(browser, cli)
                    let base = "http://127.0.0.1:\(cli.server.port)"
                    try await browser.screenshot(to: Self.artifacts + "/manage-1-family.png")
                    try await Self.expectAccessible(browser, "family")

                    // A budget: refused first (more minutes than a day has), the reason beside the field.
                    try await browser.open("\(base)/app/members/\(member)")
                    _ = try await browser.element("#week-table")
                    try await browser.screenshot(to: Self.artifacts + "/manage-2-member.png")
                    try await Self.expectAccessible(browser, "member")
                    try await browser.click("#new-budget")
                    _ = try await browser.element("#dailyMinutes")
                    try await Self.fill(browser, ["dailyMinutes": "2000"])
                    try await browser.click("#save-budget")
                    let reason = try await browser.text("#error-dailyMinutes")
                    #expect(reason.contains("1440"), "\(reason)")
                    #expect(try await browser.run("return document.getElementById('dailyMinutes').value") as? String == "2000", "what was typed stays")
                    try await browser.screenshot(to: Self.artifacts + "/manage-3-budget-form-error.png")
                    try await Self.expectAccessible(browser, "budget form with an error")
                    try await Self.fill(browser, ["dailyMinutes": "90"])
                    try await browser.click("#save-budget")
                    _ = try await browser.element("[data-budget='all']")
                    let budgets = try await cli.ok(["budgets", "--member", "Johnny", "--profile", "mom", "--json"]).jsonArray()
                    #expect(budgets.contains { $0["budgetID"] as? String == "all" && $0["dailyMinutes"] as? Int == 90 }, "\(budgets)")

                    // A schedule across midnight shielding games: in force at 02:00 (UTC, Johnny's time zone).
                    try await browser.click("#new-schedule")
                    _ = try await browser.element("#intervalStart")
                    try await Self.fill(browser, ["name": "Bedtime", "intervalStart": "21:00", "intervalEnd": "07:00", "applications": "brawl"])
                    try await browser.click("#category-gaming")
                    try await browser.screenshot(to: Self.artifacts + "/manage-4-schedule-form.png")
                    try await Self.expectAccessible(browser, "schedule form")
                    try await browser.click("#save-schedule")
                    _ = try await browser.element("[data-schedule='bedtime']")
                    let tomorrow = String(ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400)).prefix(10))
                    let night = try #require(try await DashboardBrowserTests.api(cli, "GET", "/v1/devices/\(childDevice)/shield-state?at=\(tomorrow)T02:00:00Z", as: "johnny") as? [String: Any])
                    let shielded = night["shielded"] as? [String: Any]
                    #expect(shielded?["applications"] as? [String] == ["brawl"] && shielded?["categories"] as? [String] == ["gaming"], "\(night)")

                    // Live: a CLI write shows on the open page, without a reload.
                    _ = try await browser.run("window.fsNoReload = true; return true;")
                    let wrote = ContinuousClock.now
                    try await cli.ok(["budgets", "set", "--member", "Johnny", "--category", "gaming", "--daily", "30", "--profile", "mom"])
                    _ = try await browser.element("[data-budget='gaming']")
                    let seen = ContinuousClock.now - wrote
                    #expect(try await browser.run("return window.fsNoReload === true") as? Bool == true, "the page was updated in place")
                    print("dashboard live: a CLI write appeared on the open member page \(seen) after the CLI started (the CLI process's start included)")
                    try await browser.screenshot(to: Self.artifacts + "/manage-5-live.png")

                    // By keyboard: from the top, Tab reaches a visible focus; Enter follows a link.
                    try await browser.open("\(base)/app/members/\(member)")
                    _ = try await browser.element("#week-table")
                    try await browser.press(["\u{E004}"])
                    let outline = try await browser.run("var e = document.activeElement; return e.tagName + ' ' + getComputedStyle(e).outlineStyle") as? String
                    #expect(outline == "A solid", "the first Tab focuses the header's link, visibly: \(outline ?? "-")")
                    _ = try await browser.run("document.getElementById('new-schedule').focus(); return true;")
                    try await browser.press(["\u{E007}"])
                    _ = try await browser.element("#intervalStart")

                    // Tracking health, with its timeline.
                    try await browser.open("\(base)/app/devices/\(childDevice)")
                    _ = try await browser.element("#gaps-today")
                    try await browser.screenshot(to: Self.artifacts + "/manage-6-health.png")
                    try await Self.expectAccessible(browser, "device health")

                    // A phone's width: nothing wider than the screen, and the same checks.
                    try await browser.resize(width: 375, height: 812)
                    for (name, path) in [("family", "/app/"), ("member", "/app/members/\(member)"), ("budget", "/app/members/\(member)/budgets/new")] {
                        try await browser.open(base + path)
                        _ = try await browser.element("main")
                        let overflow = try await browser.run("return document.documentElement.scrollWidth - document.documentElement.clientWidth") as? Int
                        #expect(overflow == 0, "\(name) at 375 px is \(overflow ?? -1) px wider than the screen")
                        try await browser.screenshot(to: Self.artifacts + "/manage-7-phone-\(name).png")
                        try await Self.expectAccessible(browser, "\(name) at 375 px")
                    }

                    // Korean, by the page's switch (the browser asks for English).
                    try await browser.resize(width: 1280, height: 1600)
                    try await browser.open("\(base)/app/members/\(member)")
                    try await browser.click("#language")
                    _ = try await browser.element("//h2[text()='예산']", using: "xpath")
                    #expect(try await browser.run("return document.documentElement.lang") as? String == "ko")
                    try await browser.screenshot(to: Self.artifacts + "/manage-8-korean-member.png")
                    try await Self.expectAccessible(browser, "member in Korean")
                    try await browser.open("\(base)/app/members/\(member)/schedules/bedtime")
                    _ = try await browser.element("#intervalStart")
                    try await browser.screenshot(to: Self.artifacts + "/manage-9-korean-schedule.png")
                } catch {
                    try? await browser.screenshot(to: Self.artifacts + "/manage-failure.png")
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }
}
