import AsyncHTTPClient
import FamilySyncTestSupport
import Foundation
import NIOCore
import Testing

extension ReliabilitySuites {
    /// The dashboard in a real browser (Debian's headless Chromium), against a `familysync serve`
    /// process, the parent's side played by the CLI: sign-in by a shown code, a member's week after
    /// uploads from an iPad and a Mac, dismissing an alert, blocking an app. A screenshot of each
    /// page goes to test-artifacts/dashboard/.
    @Suite(.timeLimit(.minutes(3))) struct DashboardBrowserTests {
        static let artifacts = TestPaths.packageRoot.appendingPathComponent("test-artifacts/dashboard").path

        /// Johnny's usage: an iPad and a Mac, today and two days ago (the server's clock is the real one).
        static func usageCSV(_ rows: [(app: String, name: String, category: String, minutes: Int, daysAgo: Int)]) -> String {
            let now = Date()
            let lines = rows.map { row in
                let end = now.addingTimeInterval(TimeInterval(-600 - row.daysAgo * 86_400))
                let start = end.addingTimeInterval(TimeInterval(-row.minutes * 60))
                return "\(row.app),\(row.name),\(row.category),\(start.ISO8601Format()),\(end.ISO8601Format()),0"
            }
            return (["logicalID,displayName,category,sessionStart,sessionEnd,earnedPoints"] + lines).joined(separator: "\n") + "\n"
        }

        /// A profile's credential, from the CLI's profile file.
        static func credential(_ cli: CLISession, _ profile: String) throws -> String {
            let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cli.directory + "/profiles.json"))) as? [String: Any]
            let profiles = file?["profiles"] as? [String: [String: Any]]
            return try #require(profiles?[profile]?["credential"] as? String)
        }

        /// The API as the parent's device asks it.
        static func api(_ cli: CLISession, _ method: String, _ path: String, as profile: String, json: String? = nil) async throws -> Any? {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(cli.server.port)\(path)")
            request.method = .init(rawValue: method)
            request.headers.add(name: "Authorization", value: "Bearer \(try credential(cli, profile))")
            if let json {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: json))
            }
            let response = try await HeadlessChromium.http.execute(request, timeout: .seconds(30))
            let data = Data((try await response.body.collect(upTo: 8 << 20)).readableBytesView)
            return try JSONSerialization.jsonObject(with: data)
        }

        @Test func aParentSignsInSeesTheWeekDismissesAnAlertAndBlocksAnApp() async throws {
            try await withCLISession { cli in
                try await ClientCommandTests.pairedFamily(cli)
                // Johnny's second device, a Mac.
                let invitation = try await cli.ok(["pair", "start", "--member", "Johnny", "--profile", "mom", "--json"]).json()
                let payload = try #require(invitation["qrPayload"] as? String)
                try await cli.ok(["pair", "accept", payload, "--name", "Johnny's Mac", "--platform", "macos", "--time-zone", "UTC", "--profile", "johnny-mac"])
                try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])
                try Self.usageCSV([("khan", "Khan Academy", "learning", 130, 0), ("brawl", "Brawl Stars", "reward", 40, 2)])
                    .write(toFile: cli.directory + "/ipad.csv", atomically: true, encoding: .utf8)
                try Self.usageCSV([("duolingo", "Duolingo", "learning", 92, 0), ("brawl", "Brawl Stars", "reward", 25, 0)])
                    .write(toFile: cli.directory + "/mac.csv", atomically: true, encoding: .utf8)
                try await cli.ok(["usage", "upload", "ipad.csv", "--profile", "johnny"])
                try await cli.ok(["usage", "upload", "mac.csv", "--profile", "johnny-mac"])
                let alert = try #require(try await Self.api(
                    cli, "POST", "/v1/alerts", as: "johnny",
                    json: #"{"clientAlertID":"\#(UUID().uuidString.lowercased())","kind":"threshold","category":"reward","usedMinutes":30,"message":"Half an hour of Brawl Stars"}"#
                ) as? [String: Any])
                let alertID = try #require(alert["alertID"] as? String, "\(alert)")

                let browser = try await HeadlessChromium.start(directory: cli.directory)
                do {
                    // Sign-in by the code the page shows, taken by the parent's CLI.
                    try await browser.open("http://127.0.0.1:\(cli.server.port)/app/")
                    try await browser.screenshot(to: Self.artifacts + "/1-sign-in.png")
                    try await browser.click("#start")
                    let code = try await browser.text("#code")
                    #expect(code.wholeMatch(of: /[A-Z2-7]{4}-[A-Z2-7]{4}/) != nil, "\(code)")
                    #expect(try await browser.source.contains("<svg"), "the QR code")
                    try await browser.screenshot(to: Self.artifacts + "/2-sign-in-code.png")
                    let taken = try await cli.ok(["pair", "sign-in", code, "--profile", "mom", "--json"]).json()
                    let emojiList = try #require(taken["verificationEmoji"] as? [String])
                    let emoji: String = emojiList.joined()
                    #expect(try await browser.text("#emoji") == emoji)
                    try await browser.screenshot(to: Self.artifacts + "/3-sign-in-emoji.png")
                    // The session cookie is out of the page's reach (HttpOnly).
                    #expect(try await browser.run("return document.cookie") as? String == "")
                    try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])
                    _ = try await browser.element("#members")
                    let family = try await browser.source
                    #expect(family.contains("Johnny&#39;s Mac") || family.contains("Johnny's Mac"))
                    try await browser.screenshot(to: Self.artifacts + "/4-family.png")
                    // The dashboard's address without its slash is the same page: the cookies' path is /app.
                    try await browser.open("http://127.0.0.1:\(cli.server.port)/app")
                    _ = try await browser.element("#members")

                    // Johnny's week: the page's figures are the API's.
                    try await browser.click("//a[text()='Johnny']", using: "xpath")
                    _ = try await browser.element("#week-table")
                    try await browser.screenshot(to: Self.artifacts + "/5-member.png")
                    let page = try await browser.source
                    let rows = page.matches(of: /<tr data-date="(\d{4}-\d{2}-\d{2})">.*?<td class="total" data-seconds="(\d+)">/.dotMatchesNewlines())
                    #expect(rows.count == 7)
                    let memberID = try #require(try await browser.currentURL.split(separator: "/").last.map(String.init))
                    let summaries = try #require(try await Self.api(
                        cli, "GET", "/v1/members/\(memberID)/summaries?from=\(rows.first!.1)&to=\(rows.last!.1)", as: "mom"
                    ) as? [String: Any])["summaries"] as? [[String: Any]] ?? []
                    let expected = rows.map { row in summaries.first { $0["date"] as? String == String(row.1) }?["totalSeconds"] as? Int ?? 0 }
                    #expect(rows.map { Int($0.2)! } == expected)
                    // The week's bars, as the browser holds them, carry the same totals.
                    let bars = page.matches(of: /<g class="bar" data-label="[^"]*" data-seconds="(\d+)">/).map { Int($0.1)! }
                    #expect(Array(bars.prefix(7)) == expected)
                    let inTheWeek = expected.reduce(0, +)
                    let uploaded = (130 + 40 + 92 + 25) * 60
                    #expect(inTheWeek == uploaded)
                    let split = try await browser.text("#platform-split")
                    #expect(split.contains("iPadOS") && split.contains("Mac"), "\(split)")

                    // Dismiss the alert.
                    try await browser.click("#dismiss-\(alertID)")
                    _ = try await browser.element("#no-alerts")
                    _ = try await browser.run("document.getElementById('alerts').scrollIntoView()")
                    try await browser.screenshot(to: Self.artifacts + "/6-alert-dismissed.png")
                    let alerts = try #require(try await Self.api(cli, "GET", "/v1/members/\(memberID)/alerts?from=\(rows.first!.1)&to=\(rows.last!.1)&includeDismissed=true", as: "mom") as? [String: Any])
                    let dismissed = (alerts["alerts"] as? [[String: Any]])?.first { $0["alertID"] as? String == alertID }?["dismissedAt"]
                    #expect(dismissed is String)

                    // Block Brawl Stars on both devices.
                    try await browser.click("#block-brawl")
                    _ = try await browser.element("#week-table")
                    _ = try await browser.run("document.getElementById('apps').scrollIntoView()")
                    try await browser.screenshot(to: Self.artifacts + "/7-after-blocking.png")
                    for profile in ["johnny", "johnny-mac"] {
                        let device = try #require(try await Self.api(cli, "GET", "/v1/devices/me", as: profile) as? [String: Any])["id"] as? String ?? ""
                        let pending = try #require(try await Self.api(cli, "GET", "/v1/devices/\(device)/commands?status=pending", as: "mom") as? [String: Any])
                        let commands = pending["commands"] as? [[String: Any]] ?? []
                        #expect(commands.map { $0["commandType"] as? String } == ["block"], "\(profile)")
                        #expect((commands.first?["payload"] as? [String: Any])?["logicalIDs"] as? [String] == ["brawl"])
                    }
                } catch {
                    try? await browser.screenshot(to: Self.artifacts + "/failure.png")
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }
}
