import FamilySyncTestSupport
import Foundation
import Testing

/// `familysync budgets`, `budget-status`, `alerts` and `usage totals` as a family runs them: a
/// budget, uploads that cross 80 % and 100 % of it, the two alerts, one dismissed.
@Suite(.timeLimit(.minutes(3))) struct BudgetCommandTests {
    @Test func aBudgetItsAlertsAndADismissal() async throws {
        try await withCLISession { cli in
            try await ClientCommandTests.pairedFamily(cli)
            // Yesterday (UTC), whatever the hour the test runs at.
            let day = String(ISO8601DateFormatter().string(from: Date().addingTimeInterval(-86_400)).prefix(10))
            func at(_ hour: Int, _ minute: Int) -> String { "\(day)T\(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute):00Z" }

            // The family's own category, then the categories it can use.
            try await cli.ok(["categories", "set", "x-chores", "--name", "Chores", "--kind", "learning", "--profile", "mom"])
            let categories = try await cli.ok(["categories", "--profile", "mom"]).stdout
            #expect(categories.contains("x-chores") && categories.contains("Chores") && categories.contains("social_media"), "\(categories)")
            let unknown = try await cli.run(["categories", "set", "x-Bad", "--name", "Bad", "--profile", "mom"])
            #expect(unknown.status == 1 && unknown.stderr.contains("BAD_REQUEST"), "\(unknown.stderr)")

            // A category that is none is refused by the CLI itself, before any request.
            let noCategory = try await cli.run(["budgets", "set", "--member", "Johnny", "--category", "no such!", "--daily", "60", "--profile", "mom"])
            #expect(noCategory.status == 2 && noCategory.stderr.contains("--category takes a category's id or * for all screen time"), "\(noCategory.stderr)")
            let set = try await cli.ok(["budgets", "set", "--member", "Johnny", "--category", "reward", "--daily", "60", "--profile", "mom"]).stdout
            #expect(set.contains("Johnny's budget reward: reward, 60 min a day."), "\(set)")
            let listed = try await cli.ok(["budgets", "--member", "Johnny", "--profile", "mom"]).stdout
            #expect(listed.contains("reward") && listed.contains("80%, 100%"), "\(listed)")

            try "logicalID,displayName,category,sessionStart,sessionEnd,earnedPoints\ngame,Brawl Stars,reward,\(at(10, 0)),\(at(10, 50)),0\n"
                .write(toFile: cli.directory + "/first.csv", atomically: true, encoding: .utf8)
            try "logicalID,displayName,category,sessionStart,sessionEnd,earnedPoints\ngame,Brawl Stars,reward,\(at(11, 0)),\(at(11, 15)),0\n"
                .write(toFile: cli.directory + "/second.csv", atomically: true, encoding: .utf8)
            // The parent's watch is waiting before the uploads come: it prints each alert as it is made.
            let watch = try await cli.start(["alerts", "--member", "Johnny", "--from", day, "--watch", "--profile", "mom"])
            defer { watch.signal(SIGKILL) }
            let deadline = ContinuousClock.now + .seconds(20)
            while !watch.stderr.contains("Watching Johnny's alerts") {
                guard ContinuousClock.now < deadline else { throw TestFailure("the watch did not start: \(watch.stderr)") }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await cli.ok(["usage", "upload", "first.csv", "--profile", "johnny"])
            try await waitForOutput(watch, containing: "budget 80%")
            try await cli.ok(["usage", "upload", "second.csv", "--profile", "johnny"])
            try await waitForOutput(watch, containing: "budget 100%")
            watch.signal(SIGTERM)
            _ = try await watch.waitForExit()

            let status = try await cli.ok(["budget-status", "--member", "Johnny", "--date", day, "--profile", "mom"]).stdout
            #expect(status.contains("reward  reward    1h 00m   1h 05m  0m    108%     yes"), "\(status)")
            // Today by default: nothing used yet.
            #expect(try await cli.ok(["budget-status", "--member", "Johnny", "--profile", "mom"]).stdout.contains("0%"))
            let alerts = try await cli.ok(["alerts", "--member", "Johnny", "--from", day, "--to", day, "--profile", "mom", "--json"]).json()
            let list = try #require(alerts["alerts"] as? [[String: Any]])
            #expect(Set(list.compactMap { $0["percent"] as? Int }) == [80, 100])
            let eighty = try #require(list.first { $0["percent"] as? Int == 80 }?["alertID"] as? String)
            let dismissed = try await cli.ok(["alerts", "dismiss", eighty, "--profile", "mom"]).stdout
            #expect(dismissed.contains("Dismissed: 80% of the reward budget used on \(day)"), "\(dismissed)")
            let left = try await cli.ok(["alerts", "--member", "Johnny", "--from", day, "--to", day, "--profile", "mom"]).stdout
            #expect(left.contains("budget 100%") && !left.contains("budget 80%"), "\(left)")

            // The child's device reports a threshold it watches; the parent sees it today.
            let reported = try await cli.ok(["alerts", "report", "--category", "gaming", "--used-minutes", "30", "--message", "Half an hour of games", "--profile", "johnny"]).stdout
            #expect(reported.contains("Reported: Half an hour of games"), "\(reported)")
            let today = try await cli.ok(["alerts", "--member", "Johnny", "--profile", "mom"]).stdout
            #expect(today.contains("threshold") && today.contains("Half an hour of games"), "\(today)")

            // Removed: the budget is gone, its alerts stay.
            #expect(try await cli.ok(["budgets", "remove", "reward", "--member", "Johnny", "--profile", "mom"]).stdout.contains("Removed Johnny's budget reward."))
            #expect(!(try await cli.ok(["budgets", "--member", "Johnny", "--profile", "mom"]).stdout.contains("reward")))
            #expect(try await cli.ok(["alerts", "--member", "Johnny", "--from", day, "--to", day, "--profile", "mom"]).stdout.contains("budget 100%"))
            let again = try await cli.run(["budgets", "remove", "reward", "--member", "Johnny", "--profile", "mom"])
            #expect(again.status == 1 && again.stderr.contains("NOT_FOUND"), "\(again.stderr)")
        }
    }

    /// The budget seed's flow: a 30-hour monthly social-media budget, the
    /// child's device reporting its running totals every 15 minutes, the parent's watch seeing the
    /// 80 % and the 100 % alert as they are made, and dismissing one.
    @Test func theBudgetSeedsFlowWithRunningTotals() async throws {
        try await withCLISession { cli in
            try await ClientCommandTests.pairedFamily(cli)
            // Today (UTC), and the day's allowance of 30 hours in this month.
            let now = Date()
            let day = String(ISO8601DateFormatter().string(from: now).prefix(10))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .gmt
            let allowance = 30 * 60 / (calendar.range(of: .day, in: .month, for: now)?.count ?? 30)

            let set = try await cli.ok(["budgets", "set", "--member", "Johnny", "--category", "social_media", "--monthly", "30", "--profile", "mom"]).stdout
            #expect(set.contains("social_media"), "\(set)")
            let watch = try await cli.start(["alerts", "--member", "Johnny", "--from", day, "--watch", "--profile", "mom"])
            defer { watch.signal(SIGKILL) }
            let deadline = ContinuousClock.now + .seconds(20)
            while !watch.stderr.contains("Watching Johnny's alerts") {
                guard ContinuousClock.now < deadline else { throw TestFailure("the watch did not start: \(watch.stderr)") }
                try await Task.sleep(for: .milliseconds(20))
            }

            // Four reports, 15 minutes of use apart in the seed: a quarter, half, 85 % and 110 % of
            // the allowance. Only the third and the fourth make an alert.
            func report(_ percent: Int) async throws -> String {
                let seconds = allowance * 60 * percent / 100
                try "logicalID,displayName,bundleIdentifier,totalSeconds\ntiktok,TikTok,com.zhiliaoapp.musically,\(seconds)\nkhan,Khan Academy,org.khanacademy.khanacademy,600\n"
                    .write(toFile: cli.directory + "/totals.csv", atomically: true, encoding: .utf8)
                return try await cli.ok(["usage", "totals", "totals.csv", "--date", day, "--time-zone", "UTC", "--profile", "johnny"]).stdout
            }
            #expect(!(try await report(25)).contains("budget"))
            #expect(!(try await report(50)).contains("budget"))
            let eightyFive = try await report(85)
            #expect(eightyFive.contains("budget 80%") && !eightyFive.contains("budget 100%"), "\(eightyFive)")
            try await waitForOutput(watch, containing: "budget 80%")
            // The same report again (a retry) makes nothing.
            #expect(!(try await report(85)).contains("budget"))
            #expect((try await report(110)).contains("budget 100%"))
            try await waitForOutput(watch, containing: "budget 100%")
            watch.signal(SIGTERM)
            _ = try await watch.waitForExit()

            let summary = try await cli.ok(["summaries", "--child", "Johnny", "--from", day, "--to", day, "--profile", "mom", "--json"]).stdout
            #expect(summary.contains("social_media") && summary.contains("learning"), "\(summary)")
            let alerts = try await cli.ok(["alerts", "--member", "Johnny", "--from", day, "--to", day, "--profile", "mom", "--json"]).json()
            let list = try #require(alerts["alerts"] as? [[String: Any]])
            #expect(list.compactMap { $0["percent"] as? Int }.sorted() == [80, 100])
            let hundred = try #require(list.first { $0["percent"] as? Int == 100 }?["alertID"] as? String)
            try await cli.ok(["alerts", "dismiss", hundred, "--profile", "mom"])
            let left = try await cli.ok(["alerts", "--member", "Johnny", "--from", day, "--to", day, "--profile", "mom"]).stdout
            #expect(left.contains("budget 80%") && !left.contains("budget 100%"), "\(left)")
        }
    }
}
