import FamilySyncTestSupport
import Foundation
import Testing

/// `familysync health` and `watch` as a family runs them: a child's
/// device heartbeats, then stops; the parent's watch sees it turn stale, then the tracking alert
/// once its silence passes 15 minutes. The server's clock runs 120 times faster (`--clock-rate`),
/// so the 2 minutes to stale and the 15 to the alert pass in seconds; nothing waits on a sleep.
@Suite(.timeLimit(.minutes(3))) struct HealthCommandTests {
    @Test func aChildThatStopsHeartbeatingTurnsStaleThenAlerts() async throws {
        try await withCLISession(serverArguments: ["--clock-rate", "120"]) { cli in
            // The longest invitation: at 120 times the pace, 24 hours last 12 minutes. The family
            // lives where it is about noon now: the test's half hour of the server's time crossed
            // midnight when the suite ran after 23:25 UTC, and the day's report no longer held
            // the error reported the day before.
            try await cli.pairMomAndJohnny(ttl: 86400, timeZone: nearNoon())

            let watch = try await cli.start(["watch", "--from-now", "--profile", "mom"])
            defer { watch.signal(SIGKILL) }
            let reported = try await cli.ok(["health", "report", "--sequence", "1", "--memory-mb", "6", "--error", "record_usage:intervalDidStart:disk full", "--profile", "johnny"]).stdout
            #expect(reported.contains("Heartbeat sent: healthy") && reported.contains("1 error today"), "\(reported)")
            // No more heartbeats: stale past 2 minutes of the server's time (one real second, so the
            // watch may never see the healthy version: a change feed gives a record's latest).
            try await waitForOutput(watch, containing: "DeviceHealth  health  stale")
            // Then the day's tracking alert, once the silence passes 15 minutes.
            try await waitForOutput(watch, containing: "Alert")
            #expect(watch.stdout.contains("tracking: Tracking on Johnny's iPad stopped for"), "\(watch.stdout)")
            watch.signal(SIGTERM)
            _ = try await watch.waitForExit()

            let shown = try await cli.ok(["health", "--profile", "mom"]).stdout
            #expect(shown.contains("Johnny's iPad on ") && shown.contains(": stale, last heartbeat"), "\(shown)")
            #expect(shown.contains("heartbeat_stale") && shown.contains("record_usage  failed   intervalDidStart  disk full"), "\(shown)")
            let export = try await cli.ok(["health", "--export", "--profile", "mom"]).stdout
            #expect(export.contains("\nEXTENSION HEALTH\nstatus: stale\n") && export.contains("\nDATA GAPS\n") && export.contains("\nERROR LOG\n"), "\(export)")
            let alerts = try await cli.ok(["alerts", "--member", "Johnny", "--profile", "mom"]).stdout
            #expect(alerts.contains("tracking") && alerts.contains("Tracking on Johnny's iPad stopped"), "\(alerts)")

            // A parent's device that is not tracked cannot report; a bad --error is refused here.
            let parent = try await cli.run(["health", "report", "--profile", "mom"])
            #expect(parent.status == 2 && parent.stderr.contains("reporting health is for a tracked device"), "\(parent.stderr)")
            let bad = try await cli.run(["health", "report", "--error", "oops", "--profile", "johnny"])
            #expect(bad.status == 2 && bad.stderr.contains("--error is ACTION:EVENT[:DESCRIPTION]"), "\(bad.stderr)")
        }
    }

    /// `watch --heartbeat`: the child's watch carries its heartbeat on every poll (`POST /v1/poll`),
    /// with the error `health report` left queued when the server refused nothing; the parent sees
    /// the device healthy without a `health report` of its own.
    @Test func aWatchCarriesTheHeartbeat() async throws {
        try await withCLISession { cli in
            try await cli.pairMomAndJohnny()
            #expect(try await cli.ok(["health", "--profile", "mom"]).stdout.contains(": unknown, no heartbeat yet"))

            let watch = try await cli.start(["watch", "--heartbeat", "--poll-timeout", "1", "--profile", "johnny"])
            defer { watch.signal(SIGKILL) }
            let deadline = ContinuousClock.now + .seconds(60)
            var shown = ""
            while !shown.contains(": healthy, last heartbeat") {
                guard ContinuousClock.now < deadline else { throw TestFailure("the watch's polls never carried a heartbeat: \(shown); the watch: \(watch.stderr)") }
                try await Task.sleep(for: .milliseconds(200))
                shown = try await cli.ok(["health", "--profile", "mom"]).stdout
            }
            watch.signal(SIGTERM)
            _ = try await watch.waitForExit()

            // --once holds no poll to carry it, and a device that is not tracked sends none.
            let once = try await cli.run(["watch", "--heartbeat", "--once", "--profile", "johnny"])
            #expect(once.status != 0 && once.stderr.contains("--heartbeat rides on the polls"), "\(once.stderr)")
            let parent = try await cli.run(["watch", "--heartbeat", "--profile", "mom"])
            #expect(parent.status == 2 && parent.stderr.contains("--heartbeat is for a tracked device"), "\(parent.stderr)")
        }
    }
}

/// A time zone where it is between 11:30 and 12:30 now (`Etc/GMT-1` is UTC+1, POSIX's sign).
func nearNoon(_ now: Date = Date()) -> String {
    var utc = Calendar(identifier: .gregorian)
    utc.timeZone = TimeZone(identifier: "UTC")!
    let parts = utc.dateComponents([.hour, .minute], from: now)
    let offset = 12 - (parts.hour! + (parts.minute! >= 30 ? 1 : 0))
    return offset == 0 ? "Etc/GMT" : offset > 0 ? "Etc/GMT-\(offset)" : "Etc/GMT+\(-offset)"
}
