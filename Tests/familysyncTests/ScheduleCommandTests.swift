import FamilySyncTestSupport
import Foundation
import Testing

/// `familysync schedules`, `shield set` and `shield-state` as a parent runs them: the
/// barebones seed's bedtime, 21:00–07:00 every day, two apps and the games
/// category, for a child in Berlin, read on the night the clocks go back.
@Suite(.timeLimit(.minutes(3))) struct ScheduleCommandTests {
    @Test func bedtimeForAChildInBerlinOnTheNightClocksGoBack() async throws {
        try await withCLISession { cli in
            try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--platform", "ios", "--time-zone", "Europe/Berlin", "--profile", "mom"])
            let invitation = try await cli.ok(["pair", "start", "--child-name", "Johnny", "--profile", "mom", "--json"]).json()
            try await cli.ok(["pair", "accept", try #require(invitation["qrPayload"] as? String), "--name", "Johnny's iPad", "--platform", "ipados", "--time-zone", "Europe/Berlin", "--profile", "johnny"])
            try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])

            let shield = try await cli.ok(["shield", "set", "--member", "Johnny", "--id", "night", "--title", "Time to sleep", "--button", "OK", "--blur", "dark", "--background-color", "#101820", "--profile", "mom"]).stdout
            #expect(shield.contains("Johnny's shield night"), "\(shield)")
            let added = try await cli.ok([
                "schedules", "add", "--member", "Johnny", "--name", "Bedtime", "--from", "21:00", "--to", "07:00", "--apps", "tiktok,youtube",
                "--categories", "gaming", "--shield", "night", "--profile", "mom",
            ]).stdout
            #expect(added.contains("Johnny's schedule bedtime: Bedtime, 21:00–07:00, every day."), "\(added)")
            let listed = try await cli.ok(["schedules", "--member", "Johnny", "--profile", "johnny"]).stdout
            #expect(listed.contains("bedtime") && listed.contains("21:00–07:00") && listed.contains("tiktok, youtube") && listed.contains("gaming"), "\(listed)")
            let json = try await cli.ok(["schedules", "--member", "Johnny", "--json", "--profile", "mom"]).stdout
            #expect(json.contains(#""scheduleID" : "bedtime""#) && json.contains(#""shieldConfigurationID" : "night""#), "\(json)")

            // 23:30 on Saturday 24 October, summer time; the night ends at 07:00 winter time.
            let night = try await cli.ok(["shield-state", "--at", "2026-10-24T21:30:00Z", "--profile", "mom"]).stdout
            #expect(night.contains("Johnny's iPad at 2026-10-24 23:30 GMT+2:"), "\(night)")
            #expect(night.contains("shielded: tiktok, youtube, category gaming") && night.contains("Bedtime until 2026-10-25 07:00 GMT+1"), "\(night)")
            #expect(night.contains("next change: 2026-10-25 07:00 GMT+1"), "\(night)")
            let noon = try await cli.ok(["shield-state", "--at", "2026-10-25T11:00:00Z", "--profile", "johnny"]).stdout
            #expect(noon.contains("shielded: nothing") && noon.contains("next change: 2026-10-25 21:00 GMT+1"), "\(noon)")

            // A name that is not ASCII still makes an id the server takes (Core's rule, the dashboard's too).
            let korean = try await cli.ok(["schedules", "add", "--member", "Johnny", "--name", "Écran 주말", "--from", "10:00", "--to", "11:00", "--profile", "mom"]).stdout
            #expect(korean.contains("Johnny's schedule cran: Écran 주말, 10:00–11:00, every day."), "\(korean)")
            try await cli.ok(["schedules", "remove", "cran", "--member", "Johnny", "--profile", "mom"])

            // Bad input is refused; the child's device cannot set a schedule.
            let equal = try await cli.run(["schedules", "add", "--member", "Johnny", "--name", "Nap", "--from", "13:00", "--to", "13:00", "--profile", "mom"])
            #expect(equal.status == 1 && equal.stderr.contains("BAD_REQUEST"), "\(equal.stderr)")
            let child = try await cli.run(["schedules", "add", "--member", "Johnny", "--name", "Mine", "--from", "13:00", "--to", "14:00", "--profile", "johnny"])
            #expect(child.status == 2 && child.stderr.contains("setting a schedule is for a parent device"), "\(child.stderr)")

            try await cli.ok(["schedules", "remove", "bedtime", "--member", "Johnny", "--profile", "mom"])
            let after = try await cli.ok(["shield-state", "--at", "2026-10-24T21:30:00Z", "--profile", "mom"]).stdout
            #expect(after.contains("shielded: nothing"), "\(after)")
        }
    }
}
