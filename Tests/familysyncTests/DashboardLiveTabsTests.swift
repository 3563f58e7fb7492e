import FamilySyncCore
import FamilySyncTestSupport
import Foundation
import Testing

extension ReliabilitySuites {
    /// The dashboard over HTTPS and HTTP/2: eight tabs of one family open at once on one
    /// connection, holding their live polls by turns, all updated by one write.
    @Suite(.timeLimit(.minutes(3))) struct DashboardLiveTabsTests {
        static let artifacts = DashboardBrowserTests.artifacts

        @Test func eightLiveTabsOfOneFamilyAllUpdateOnOneWrite() async throws {
            try await withCLISession(tls: true) { cli in
                try await ClientCommandTests.pairedFamily(cli)
                let members = try await cli.ok(["members", "--profile", "mom", "--json"]).json()["members"] as? [[String: Any]] ?? []
                let member = try #require(members.first { $0["name"] as? String == "Johnny" }?["id"] as? String, "\(members)")
                // The browser trusts the server's key alone, by its SHA-256 (no system trust store
                // is touched): Chromium's `--ignore-certificate-errors-spki-list`.
                let (_, pin) = try await runProgram("/bin/sh", [
                    "-c", "openssl x509 -in '\(cli.directory)/familysync.crt' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
                ])
                let browser = try await HeadlessChromium.start(directory: cli.directory, arguments: [
                    "--ignore-certificate-errors-spki-list=\(pin.trimmingCharacters(in: .whitespacesAndNewlines))",
                ])
                do {
                    try await DashboardManageBrowserTests.signIn(browser, cli)
                    let cookies = try #require(try await HeadlessChromium.call("GET", browser.session + "/cookie") as? [[String: Any]])
                    #expect(!cookies.isEmpty && cookies.allSatisfy { $0["secure"] as? Bool == true }, "\(cookies)")

                    var tabs = [try await browser.currentTab]
                    for _ in 1..<8 { tabs.append(try await browser.newTab()) }
                    for tab in tabs {
                        try await browser.switchTo(tab)
                        try await browser.open("\(cli.baseURL)/app/members/\(member)")
                        _ = try await browser.element("#week-table")
                        #expect(try await browser.run("return performance.getEntriesByType('navigation')[0].nextHopProtocol") as? String == "h2")
                        _ = try await browser.run("window.fsNoReload = true; return true;")
                    }
                    // The tabs' scripts hold as many polls as the server holds for one device (§6);
                    // the other tabs take turns, and learn of a change at their next poll.
                    let deadline = ContinuousClock.now + .seconds(60)
                    while try await Self.heldPolls(cli) < LongPollRules.maximumPerDevice {
                        guard ContinuousClock.now < deadline else { throw TestFailure("\(try await Self.heldPolls(cli)) polls held, not \(LongPollRules.maximumPerDevice)") }
                        try await Task.sleep(for: .milliseconds(100))
                    }

                    try await cli.ok(["budgets", "set", "--member", "Johnny", "--category", "gaming", "--daily", "30", "--profile", "mom"])
                    for tab in tabs {
                        try await browser.switchTo(tab)
                        _ = try await browser.element("[data-budget='gaming']", timeout: .seconds(90))
                        #expect(try await browser.run("return window.fsNoReload === true") as? Bool == true, "the tab was updated in place")
                    }
                    try await browser.screenshot(to: Self.artifacts + "/live-tabs-8.png")
                } catch {
                    try? await browser.screenshot(to: Self.artifacts + "/live-tabs-failure.png")
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }

        /// The polls the server holds now, from its metrics.
        static func heldPolls(_ cli: CLISession) async throws -> Int {
            let (_, text) = try await runProgram("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", cli.directory + "/familysync.crt", cli.baseURL + "/metrics"])
            let line = text.split(separator: "\n").first { $0.hasPrefix("familysync_polls_active ") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? -1
        }
    }
}
