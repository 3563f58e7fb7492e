import FamilySyncTestSupport
import Foundation
import Testing

/// `familysync pin set` and `pin verify` (§11), and the child's own app list through `config set`,
/// against a server logging at trace level: the PIN never reaches its log.
@Suite(.timeLimit(.minutes(3))) struct PINCommandTests {
    @Test func aParentSetsThePINTheChildsDeviceChecksItAndTheLogNeverHoldsIt() async throws {
        try await withCLISession(serverArguments: ["--log-level", "trace"]) { cli in
            try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--platform", "ios", "--time-zone", "Europe/Berlin", "--profile", "mom"])
            let invitation = try await cli.ok(["pair", "start", "--child-name", "Johnny", "--profile", "mom", "--json"]).json()
            try await cli.ok(["pair", "accept", try #require(invitation["qrPayload"] as? String), "--name", "Johnny's iPad", "--platform", "ipados", "--time-zone", "Europe/Berlin", "--profile", "johnny"])
            try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])

            let set = try await cli.ok(["pin", "set", "--member", "Johnny", "--profile", "mom"], input: "73950284\n").stdout
            #expect(set.contains("Johnny's parent PIN is set"), "\(set)")
            let right = try await cli.ok(["pin", "verify", "--profile", "johnny"], input: "73950284\n").stdout
            #expect(right.contains("The PIN is right."), "\(right)")
            let wrong = try await cli.run(["pin", "verify", "--profile", "johnny"], input: "61842753\n")
            #expect(wrong.status == 1 && wrong.stdout.contains("The PIN is wrong."), "\(wrong.stdout) \(wrong.stderr)")
            // Malformed PINs never leave the CLI (the server's own refusals are ParentPINBadInputTests');
            // a child's device sets none.
            let short = try await cli.run(["pin", "verify", "--profile", "johnny"], input: "739\n")
            #expect(short.status == 2 && short.stderr.contains("a PIN is 4 to 8 digits"), "\(short.stderr)")
            let byChild = try await cli.run(["pin", "set", "--member", "Johnny", "--profile", "johnny"], input: "1234\n")
            #expect(byChild.status == 2 && byChild.stderr.contains("setting a PIN is for a parent device"), "\(byChild.stderr)")
            let none = try await cli.run(["pin", "verify", "--profile", "johnny"])
            #expect(none.status == 2 && none.stderr.contains("no PIN on standard input"), "\(none.stderr)")
            // Five wrong in all: the next check is refused for 15 minutes.
            for _ in 1...4 { _ = try await cli.run(["pin", "verify", "--profile", "johnny"], input: "61842753\n") }
            let locked = try await cli.run(["pin", "verify", "--profile", "johnny"], input: "73950284\n")
            // The lock's 15 minutes, less what has passed since the last wrong PIN (seconds on a busy machine).
            let wait = locked.stderr.firstMatch(of: /Try again in (\d+) s\./).flatMap { Int($0.1) }
            #expect(locked.status == 3 && locked.stderr.contains("THROTTLED") && wait.map { (1...900).contains($0) } == true, "\(locked.stderr)")

            let log = cli.server.stderr + cli.server.stdout
            #expect(log.contains("/pin/verify") && log.contains("PUT"), "the trace log records the requests: \(log.suffix(2000))")
            #expect(!log.contains("73950284") && !log.contains("61842753"))

            // Cleared: nothing left to check against.
            #expect(try await cli.ok(["pin", "clear", "--member", "Johnny", "--profile", "mom"]).stdout.contains("Johnny's parent PIN is cleared."))
            let gone = try await cli.run(["pin", "verify", "--profile", "johnny"], input: "73950284\n")
            #expect(gone.status == 1 && gone.stderr.contains("NOT_FOUND"), "\(gone.stdout) \(gone.stderr)")
        }
    }

    /// Seed 004's parent mode on the child's device: apps picked there are published from it, and
    /// the parent reads them with the rest of the child's configuration.
    @Test func aChildsDevicePublishesTheAppsPickedOnIt() async throws {
        try await withCLISession { cli in
            try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--platform", "ios", "--time-zone", "Europe/Berlin", "--profile", "mom"])
            let invitation = try await cli.ok(["pair", "start", "--child-name", "Johnny", "--profile", "mom", "--json"]).json()
            try await cli.ok(["pair", "accept", try #require(invitation["qrPayload"] as? String), "--name", "Johnny's iPad", "--platform", "ipados", "--time-zone", "Europe/Berlin", "--profile", "johnny"])
            try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])

            let published = try await cli.ok(["config", "set", "--app", "token-7f3a", "--name", "Minecraft", "--category", "reward", "--blocked", "--profile", "johnny"]).stdout
            #expect(published.contains("Minecraft (token-7f3a) is reward, blocked in Johnny's iPad's own list."), "\(published)")
            // Again: the same record, replaced from its tag.
            try await cli.ok(["config", "set", "--app", "token-7f3a", "--name", "Minecraft", "--category", "reward", "--no-blocked", "--profile", "johnny"])
            let listed = try await cli.ok(["config", "list", "--profile", "mom", "--json"]).json()
            let records = try #require(listed["records"] as? [[String: Any]])
            #expect(records.count == 1)
            let fields = try #require(records.first?["fields"] as? [String: Any])
            #expect(fields["displayName"] as? String == "Minecraft" && fields["blockingEnabled"] as? Bool == false)
        }
    }
}
