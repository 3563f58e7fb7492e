import FamilySyncTestSupport
import Foundation
import Testing

/// `familysync members`, `summaries --member`, `report --member`, `pair start --member` and
/// `family recover`, as a person runs them (docs/walkthrough.md, a child with two devices).
@Suite(.timeLimit(.minutes(3))) struct MemberCommandTests {
    @Test func aChildWithTwoDevicesAndOneView() async throws {
        try await withCLISession { cli in
            let created = try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--platform", "ios", "--time-zone", "UTC", "--profile", "mom"]).stdout
            let code = try #require(created.firstMatch(of: /Recovery code: ([A-Z2-7-]+)/)?.1)
            #expect(created.contains("keep it somewhere safe"))
            let ipad = try await cli.ok(["pair", "start", "--child-name", "Johnny", "--profile", "mom", "--json"]).json()
            try await cli.ok(["pair", "accept", try #require(ipad["qrPayload"] as? String), "--name", "Johnny's iPad", "--platform", "ipados", "--time-zone", "UTC", "--profile", "ipad"])
            try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])
            // The Mac joins Johnny, not a new person.
            let mac = try await cli.ok(["pair", "start", "--member", "johnny", "--profile", "mom", "--json"]).json()
            #expect((mac["pairing"] as? [String: Any])?["memberId"] as? String != nil)
            try await cli.ok(["pair", "accept", try #require(mac["qrPayload"] as? String), "--name", "Johnny's Mac", "--platform", "macos", "--time-zone", "UTC", "--profile", "mac"])
            try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])
            let members = try await cli.ok(["members", "--profile", "mom"]).stdout
            #expect(members.contains("Johnny") && members.contains("Johnny's iPad (ipados)") && members.contains("Johnny's Mac (macos)"), "\(members)")

            try """
                logicalID,displayName,category,sessionStart,sessionEnd,earnedPoints
                app-khan,Khan Academy,learning,2026-01-02T14:00:00Z,2026-01-02T16:10:00Z,10
                """.write(toFile: cli.directory + "/ipad.csv", atomically: true, encoding: .utf8)
            try """
                logicalID,displayName,category,sessionStart,sessionEnd,earnedPoints
                app-duo,Duolingo,learning,2026-01-02T18:00:00Z,2026-01-02T19:32:00Z,5
                """.write(toFile: cli.directory + "/mac.csv", atomically: true, encoding: .utf8)
            try await cli.ok(["usage", "upload", "ipad.csv", "--profile", "ipad"])
            try await cli.ok(["usage", "upload", "mac.csv", "--profile", "mac"])

            let day = try await cli.ok(["summaries", "--member", "Johnny", "--from", "2026-01-02", "--to", "2026-01-02", "--profile", "mom"]).stdout
            #expect(day.contains("iPadOS 2h 10m (59%) | Mac 1h 32m (41%)"), "\(day)")
            let csv = try await cli.ok(["report", "--member", "Johnny", "--from", "2026-01-02", "--to", "2026-01-02", "--csv", "--profile", "mom"]).stdout
            #expect(csv.contains("2026-01-02,2026-01-02,platform,macos,,,5520,"), "\(csv)")
            // Johnny's own Mac reads his view too.
            try await cli.ok(["summaries", "--member", "Johnny", "--from", "2026-01-02", "--to", "2026-01-02", "--profile", "mac"])

            // Mom's phone records her own usage once tracked, through the same commands.
            let untracked = try await cli.run(["usage", "upload", "mac.csv", "--profile", "mom"])
            #expect(untracked.status == 2 && untracked.stderr.contains("'familysync members track' tracks it"), "\(untracked.stderr)")
            #expect(try await cli.ok(["members", "track", "--profile", "mom"]).stdout.contains("is tracked"))
            #expect(try await cli.ok(["usage", "upload", "mac.csv", "--profile", "mom"]).stdout.contains("The server took 1 new"))

            // Every parent device lost: the code brings the family back, once.
            let recovered = try await cli.ok(["family", "recover", "--code", String(code), "--name", "New phone", "--platform", "ios", "--time-zone", "UTC", "--profile", "mom2"]).stdout
            #expect(recovered.contains("Recovered family") && recovered.contains("Recovery code:"))
            let again = try await cli.run(["family", "recover", "--code", String(code), "--name", "Other", "--platform", "ios", "--time-zone", "UTC", "--profile", "mom3"])
            #expect(again.status == 1 && again.stderr.contains("NOT_FOUND"), "\(again.stderr)")
        }
    }
}
