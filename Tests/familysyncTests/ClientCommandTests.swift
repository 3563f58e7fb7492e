import FamilySyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `familysync` client subcommands as a person or a script runs them: separate processes,
/// a profile file, a real server process, docs/walkthrough.md's steps.
@Suite(.timeLimit(.minutes(3))) struct ClientCommandTests {
    static let usageCSV = """
        logicalID,displayName,category,sessionStart,sessionEnd,earnedPoints
        app-khan,Khan Academy,learning,2026-01-02T14:00:00Z,2026-01-02T14:25:00Z,125
        app-game,"Brawl Stars, the game",reward,2026-01-02T14:30:00Z,2026-01-02T14:45:00Z,0

        """

    /// A family (profile mom) and a confirmed child (profile johnny, in UTC).
    static func pairedFamily(_ cli: CLISession) async throws {
        try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--platform", "ios", "--time-zone", "UTC", "--profile", "mom"])
        let invitation = try await cli.ok(["pair", "start", "--child-name", "Johnny", "--profile", "mom", "--json"]).json()
        let payload = try #require(invitation["qrPayload"] as? String)
        let accepted = try await cli.ok(["pair", "accept", payload, "--name", "Johnny's iPad", "--platform", "ipados", "--time-zone", "UTC", "--profile", "johnny", "--json"]).json()
        let emoji = (accepted["pairing"] as? [String: Any])?["verificationEmoji"] as? [String]
        #expect(emoji?.count == 7)

        // Confirming needs the person's word: without a terminal, --yes.
        let unconfirmed = try await cli.run(["pair", "confirm", "--profile", "mom"])
        #expect(unconfirmed.status == 2)
        #expect(unconfirmed.stderr.contains("then confirm with --yes"))
        #expect(unconfirmed.stderr.contains(emoji?.joined() ?? "?"), "the parent is shown the child's emoji")
        let confirmed = try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom", "--json"]).json()
        #expect(confirmed["status"] as? String == "confirmed")
        #expect(confirmed["verificationEmoji"] as? [String] == emoji)
    }

    @Test func aParentAndAChildThroughTheCLI() async throws {
        try await withCLISession { cli in
            try await Self.pairedFamily(cli)
            let devices = try await cli.ok(["devices", "--profile", "mom"]).stdout
            #expect(devices.contains("Johnny's iPad") && devices.contains("active"))
            #expect(devices.split(separator: "\n").first?.hasPrefix("ID") == true)

            // Configuration and a command, and the child's side of them.
            let configured = try await cli.ok(["config", "set", "--app", "app-khan", "--name", "Khan Academy", "--category", "learning", "--points", "5", "--profile", "mom"])
            #expect(configured.stdout.contains("Khan Academy (app-khan) is learning, 5 points a minute, not blocked on Johnny's iPad."))
            let apps = try await cli.ok(["config", "list", "--profile", "johnny"]).stdout
            #expect(apps.contains("app-khan") && apps.contains("learning"))
            let sent = try await cli.ok(["command", "send", "block", "--payload", #"{"logicalIDs":["app-game"]}"#, "--child", "johnny", "--profile", "mom", "--json"]).json()
            let commandID = try #require(sent["commandId"] as? String)
            let listed = try await cli.ok(["command", "list", "--profile", "johnny", "--json"]).json()
            let commands = try #require(listed["commands"] as? [[String: Any]])
            #expect(commands.map { $0["status"] as? String } == ["delivered", "delivered"], "the child's listing delivers")
            try await cli.ok(["command", "result", commandID, "--failed", "Screen Time is off", "--profile", "johnny"])
            let seen = try await cli.ok(["command", "list", "--status", "failed", "--profile", "mom"]).stdout
            #expect(seen.contains(commandID) && seen.contains("Screen Time is off"))

            // Usage from a CSV file, sent twice: the second time it is all duplicates.
            try Self.usageCSV.write(toFile: cli.directory + "/usage.csv", atomically: true, encoding: .utf8)
            let first = try await cli.ok(["usage", "upload", "usage.csv", "--profile", "johnny", "--json"]).json()
            #expect(first["accepted"] as? Int == 2 && first["duplicates"] as? Int == 0)
            let again = try await cli.ok(["usage", "upload", "usage.csv", "--profile", "johnny", "--json"]).json()
            #expect(again["accepted"] as? Int == 0 && again["duplicates"] as? Int == 2)

            // The parent's reads.
            let summaries = try await cli.ok(["summaries", "--from", "2026-01-01", "--to", "2026-01-02", "--profile", "mom"]).stdout
            #expect(summaries.contains("2026-01-01  0m        0m      0m     0       -"), "\(summaries)")
            #expect(summaries.contains("2026-01-02  25m       15m     40m    125     Khan Academy 25m, Brawl Stars, the game 15m"), "\(summaries)")
            let csv = try await cli.ok(["report", "--from", "2026-01-02", "--to", "2026-01-02", "--csv", "--profile", "mom"]).stdout
            #expect(csv.contains(#"2026-01-02,2026-01-02,app-game,"Brawl Stars, the game",reward,900,0"#), "\(csv)")
            let report = try await cli.ok(["report", "--from", "2026-01-01", "--to", "2026-01-07", "--granularity", "week", "--profile", "mom", "--json"]).json()
            #expect((report["totals"] as? [String: Any])?["totalSeconds"] as? Int == 2400)

            // What the parent's watch prints since its last run: everything, the first time.
            let watched = try await cli.ok(["watch", "--once", "--profile", "mom"]).stdout
            #expect(watched.contains("DailySummary  summary-2026-01-02  2026-01-02: learning 25m, reward 15m, 125 points"), "\(watched)")
            #expect(watched.contains("ConfigurationCommand") && watched.contains("block failed: Screen Time is off"))
            #expect(try await cli.ok(["watch", "--once", "--profile", "mom"]).stdout.isEmpty, "nothing new since")

            // Deleting the family ends every device's credential and removes the parent's profile.
            try await cli.ok(["family", "delete", "--yes", "--profile", "mom"])
            #expect(try await cli.run(["devices", "--profile", "johnny"]).status == 4)
            #expect(try await cli.run(["devices", "--profile", "mom"]).stderr.contains("no profile 'mom'"))
            #expect(!FileManager.default.fileExists(atPath: cli.directory + "/state/mom.json"))
        }
    }

    /// `pair start` draws the QR code with `qrencode` when it is on PATH (here a stand-in that
    /// shows how it was called), and prints the payload alone when it is not.
    @Test func pairStartDrawsTheQRCodeWithQrencodeWhereInstalled() async throws {
        try await withCLISession { cli in
            try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--profile", "mom"])
            let bin = cli.directory + "/bin"
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            try "#!/bin/sh\necho \"QR($*)\"\n".write(toFile: bin + "/qrencode", atomically: true, encoding: .utf8)
            chmod(bin + "/qrencode", 0o755)
            let drawn = try await cli.ok(["pair", "start", "--profile", "mom"], environment: ["PATH": bin + ":/usr/bin:/bin"]).stdout
            let payload = try #require(drawn.split(separator: "'").first { $0.hasPrefix("familysync://pair?") })
            #expect(drawn.contains("QR(-t UTF8 -m 2 -o - \(payload))"), "\(drawn)")

            let empty = cli.directory + "/empty"
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
            let plain = try await cli.ok(["pair", "start", "--profile", "mom"], environment: ["PATH": empty]).stdout
            #expect(plain.contains("familysync pair accept 'familysync://pair?v=1&s="))
            #expect(!plain.contains("QR(") && !plain.contains("█"))
        }
    }

    /// `pair code` shows a code and waits; `pair sign-in` on the parent's profile takes it; the
    /// waiting process saves its profile and, once the parent confirms, ends (§3.1).
    @Test func aDeviceJoinsByShowingACode() async throws {
        try await withCLISession { cli in
            try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--profile", "mom"])
            let waiting = try await cli.start(["pair", "code", "--name", "Kitchen Mac", "--platform", "macos", "--time-zone", "UTC", "--every", "1", "--wait", "--profile", "dad"])
            defer { waiting.signal(SIGKILL) }
            try await waitForOutput(waiting, containing: "familysync pair sign-in ")
            let line = try #require(waiting.stdout.split(separator: "\n").first { $0.hasPrefix("On a parent device, run: familysync pair sign-in ") })
            let code = String(try #require(line.split(separator: " ").last))
            #expect(code.wholeMatch(of: /[A-Z2-7]{4}-[A-Z2-7]{4}/) != nil)

            // The parent types it as a person would.
            let taken = try await cli.ok(["pair", "sign-in", code.lowercased(), "--wait", "--profile", "mom", "--json"]).json()
            #expect(taken["role"] as? String == "parent" && taken["status"] as? String == "accepted")
            let emoji = try #require(taken["verificationEmoji"] as? [String])
            try await waitForOutput(waiting, containing: "Check that the parent's screen shows the same emoji: \(emoji.joined())")
            try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])
            #expect(try await waiting.waitForExit() == .exited(0), "\(waiting.stderr)")
            #expect(waiting.stdout.contains("Confirmed: this device is an active parent device."))

            // The new profile is a parent device of the family.
            let devices = try await cli.ok(["devices", "--profile", "dad"]).stdout
            #expect(devices.contains("Kitchen Mac") && devices.contains("Mom's iPhone"))
            let again = try await cli.run(["pair", "sign-in", code, "--profile", "mom"])
            #expect(again.status != 0 && again.stderr.contains("already used"), "\(again.stderr)")
        }
    }

    /// `watch` holds its long poll and prints the child's new summary as the upload lands.
    @Test func theParentsWatchPrintsTheChildsSummaryAsItComes() async throws {
        try await withCLISession { cli in
            try await Self.pairedFamily(cli)
            let watch = try await cli.start(["watch", "--from-now", "--json", "--profile", "mom"])
            defer { watch.signal(SIGKILL) }
            // Once the watch has saved where "now" is, a later upload is one it must print.
            let deadline = ContinuousClock.now + .seconds(20)
            while !((try? String(contentsOfFile: cli.directory + "/state/mom.json", encoding: .utf8))?.contains("databaseToken") ?? false) {
                guard ContinuousClock.now < deadline else { throw TestFailure("the watch saved no tokens; stderr: \(watch.stderr)") }
                try await Task.sleep(for: .milliseconds(20))
            }
            try Self.usageCSV.write(toFile: cli.directory + "/usage.csv", atomically: true, encoding: .utf8)
            try await cli.ok(["usage", "upload", "usage.csv", "--profile", "johnny"])
            try await waitForOutput(watch, containing: "DailySummary")
            let lines = watch.stdout.split(separator: "\n")
            let events = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            #expect(events.allSatisfy { $0["event"] as? String == "changes" })
            let records = events.flatMap { ($0["records"] as? [[String: Any]]) ?? [] }
            #expect(!records.contains { $0["recordType"] as? String == "AppConfiguration" || $0["recordType"] as? String == "ConfigurationCommand" }, "--from-now skips the past")
            let summary = try #require(records.first { $0["recordType"] as? String == "DailySummary" })
            #expect((summary["fields"] as? [String: Any])?["totalLearningSeconds"] as? Int == 1500)

            // Revoked: the watch says why on standard error and exits 4.
            try await cli.ok(["devices", "revoke", "Johnny", "--profile", "mom"])
            let childWatch = try await cli.start(["watch", "--profile", "johnny"])
            #expect(try await childWatch.waitForExit() == .exited(4))
            #expect(childWatch.stderr.contains("AUTHENTICATION_REQUIRED") && childWatch.stderr.contains("pair it again"), "\(childWatch.stderr)")
            watch.signal(SIGTERM)
            _ = try await watch.waitForExit()
        }
    }

    /// A profile paired again holds another device: its saved tokens are of the old one, so the
    /// next watch says to drop what the old device had and starts over.
    @Test func aProfilePairedAgainStartsItsWatchOver() async throws {
        try await withCLISession { cli in
            try await Self.pairedFamily(cli)
            try await cli.ok(["config", "set", "--app", "app-khan", "--name", "Khan Academy", "--category", "learning", "--profile", "mom"])
            #expect(try await cli.ok(["watch", "--once", "--profile", "johnny"]).stdout.contains("AppConfiguration"))
            let invitation = try await cli.ok(["pair", "start", "--profile", "mom", "--json"]).json()
            let payload = try #require(invitation["qrPayload"] as? String)
            let refused = try await cli.run(["pair", "accept", payload, "--name", "Johnny's new iPad", "--profile", "johnny"])
            #expect(refused.status == 2 && refused.stderr.contains("already holds Johnny's iPad"))
            try await cli.ok(["pair", "accept", payload, "--name", "Johnny's new iPad", "--profile", "johnny", "--force"])
            try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])
            let again = try await cli.ok(["watch", "--once", "--from-now", "--json", "--profile", "johnny"]).stdout
            let events = again.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(events.contains { $0["event"] as? String == "zoneReset" }, "\(again)")
            #expect(!events.contains { $0["event"] as? String == "changes" }, "--from-now skips the new device's past")
        }
    }

    /// Usage recorded while the server is down stays queued (exit 3) and goes through later.
    @Test func aServerThatIsDownKeepsTheUploadQueued() async throws {
        try await withCLISession { cli in
            try await Self.pairedFamily(cli)
            try Self.usageCSV.write(toFile: cli.directory + "/usage.csv", atomically: true, encoding: .utf8)
            let down = try await cli.run(["usage", "upload", "usage.csv", "--server", "http://127.0.0.1:\(try freePort())", "--profile", "johnny"])
            #expect(down.status == 3)
            #expect(down.stderr.contains("TRY_AGAIN_LATER") && down.stderr.contains("2 usage records stay queued"), "\(down.stderr)")
            let state = try String(contentsOfFile: cli.directory + "/state/johnny.json", encoding: .utf8)
            #expect(state.contains("app-khan") && state.contains("app-game"))
            let attributes = try FileManager.default.attributesOfItem(atPath: cli.directory + "/state/johnny.json")
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            let flushed = try await cli.ok(["usage", "flush", "--profile", "johnny", "--json"]).json()
            #expect(flushed["accepted"] as? Int == 2 && flushed["stillQueued"] as? Int == 0)

            // A watch whose server is away says so on standard error and keeps trying.
            let watch = try await cli.start(["watch", "--server", "http://127.0.0.1:\(try freePort())", "--profile", "mom"])
            defer { watch.signal(SIGKILL) }
            let deadline = ContinuousClock.now + .seconds(20)
            while !watch.stderr.contains("trying again in") {
                guard ContinuousClock.now < deadline else { throw TestFailure("no retry notice: \(watch.stderr)") }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(watch.stderr.contains("TRY_AGAIN_LATER"))
            #expect(watch.stdout.isEmpty)
            watch.signal(SIGTERM)
            _ = try await watch.waitForExit()
        }
    }

    @Test func badInputIsRefusedWithOneLineAndItsExitCode() async throws {
        try await withCLISession { cli in
            try await Self.pairedFamily(cli)
            let profileFile = cli.directory + "/profiles.json"
            let before = try String(contentsOfFile: profileFile, encoding: .utf8)
            #expect((try FileManager.default.attributesOfItem(atPath: profileFile)[.posixPermissions] as? Int) == 0o600)
            try "logicalID,displayName,category,sessionStart,sessionEnd,colour\na,A,learning,2026-01-02T14:00:00Z,2026-01-02T14:01:00Z,red\n"
                .write(toFile: cli.directory + "/extra.csv", atomically: true, encoding: .utf8)
            try "logicalID,displayName,category,sessionStart,sessionEnd\na,A,learning,yesterday,2026-01-02T14:01:00Z\n"
                .write(toFile: cli.directory + "/when.csv", atomically: true, encoding: .utf8)
            try #"{"records":[{"logicalID":"a","displayName":"A","category":"learning","sessionStart":"2026-01-02T14:00:00Z","sessionEnd":"2026-01-02T13:00:00Z","totalSeconds":0}]}"#
                .write(toFile: cli.directory + "/backwards.json", atomically: true, encoding: .utf8)
            try "logicalID,displayName\na,A\n".write(toFile: cli.directory + "/untimed.csv", atomically: true, encoding: .utf8)
            try "logicalID,displayName,totalSeconds\na,A,lots\n".write(toFile: cli.directory + "/lots.csv", atomically: true, encoding: .utf8)
            try #"{"date":"2026-11-18","apps":[{"logicalID":"a","displayName":"A","totalSeconds":90001}]}"#.write(toFile: cli.directory + "/long.json", atomically: true, encoding: .utf8)
            try #"{"day":"2026-11-18","apps":[]}"#.write(toFile: cli.directory + "/day.json", atomically: true, encoding: .utf8)

            let cases: [([String], Int32, String)] = [
                (["pair", "accept", "familysync://pair?v=2&p=x", "--name", "X", "--profile", "x"], 2, "that is not a FamilySync pairing code"),
                (["pair", "accept", "https://example.com", "--name", "X", "--profile", "x"], 2, "not a familysync://pair link"),
                (["pair", "accept", "familysync://pair?v=1&s=x&p=\(UUID())&d=\(UUID())&t=fp1.x", "--server", "http://127.0.0.1:1", "--name", "X", "--profile", "x"], 3, "could not be reached"),
                (["devices", "--profile", "nobody"], 2, "no profile 'nobody'"),
                (["devices", "--profile", "../etc"], 2, "a profile name is 1-64 of"),
                (["family", "create", "--name", "Dad", "--profile", "mom"], 2, "profile 'mom' already holds Mom's iPhone"),
                (["family", "create", "--name", "Dad", "--platform", "nokia", "--profile", "dad"], 2, "the platform is one of ios, ipados"),
                (["family", "create", "--name", "Dad", "--server", "ftp://x", "--profile", "dad"], 2, "the server must be an http:// or https:// URL"),
                (["devices", "--ca-certificate", "/nonexistent/ca.crt", "--profile", "mom"], 2, "the CA certificate file /nonexistent/ca.crt (--ca-certificate) cannot be read as PEM certificates"),
                (["devices", "--ca-certificate", "extra.csv", "--profile", "mom"], 2, "the CA certificate file extra.csv (--ca-certificate) cannot be read as PEM certificates"),
                (["family", "delete", "--profile", "mom"], 2, "pass --yes"),
                (["usage", "upload", "extra.csv", "--profile", "johnny"], 2, "column 'colour' is not one of"),
                (["usage", "upload", "when.csv", "--profile", "johnny"], 2, "row 2: sessionStart is not an RFC 3339 instant"),
                (["usage", "upload", "missing.csv", "--profile", "johnny"], 2, "cannot read the usage file"),
                (["usage", "upload", "backwards.json", "--profile", "johnny"], 1, "refused 1 usage record, dropped from the queue: "),
                (["usage", "upload", "extra.csv", "--profile", "mom"], 2, "uploading usage is for a tracked device; profile 'mom' is an untracked parent"),
                (["usage", "totals", "untimed.csv", "--profile", "johnny"], 2, "the totals file has no 'totalSeconds' column"),
                (["usage", "totals", "lots.csv", "--profile", "johnny"], 2, "row 2: totalSeconds is not a whole number"),
                (["usage", "totals", "day.json", "--profile", "johnny"], 2, "the totals file has an unknown member 'day'"),
                (["usage", "totals", "long.json", "--date", "2026-11-18", "--profile", "johnny"], 1, "BAD_REQUEST"),
                (["usage", "totals", "long.json", "--profile", "mom"], 2, "reporting totals is for a tracked device"),
                (["command", "send", "block", "--payload", "[1]", "--profile", "mom"], 2, "the payload must be a JSON object"),
                (["command", "send", "explode", "--profile", "mom"], 1, "BAD_REQUEST"),
                (["command", "result", "\(UUID())", "--executed", "--profile", "johnny"], 1, "NOT_FOUND"),
                (["command", "result", "\(UUID())", "--profile", "johnny"], 2, "give exactly one of --executed and --failed"),
                (["config", "set", "--app", "a", "--name", "A", "--category", "fun", "--profile", "mom"], 1, "BAD_REQUEST"),
                (["summaries", "--child", "Ann", "--profile", "mom"], 2, "no child device matches 'Ann'"),
                (["summaries", "--from", "2026-02-01", "--to", "2026-01-01", "--profile", "mom"], 1, "BAD_REQUEST"),
                (["summaries", "--profile", "johnny"], 2, "reading summaries is for a parent device"),
                (["report", "--granularity", "month", "--profile", "mom"], 2, "the granularity is one of day, week"),
                (["watch", "--poll-timeout", "61", "--profile", "mom"], 2, "--poll-timeout is 1 to 60 seconds"),
                (["pair", "confirm", "--yes", "--profile", "mom"], 2, "no device has accepted a pairing yet"),
            ]
            for (arguments, status, message) in cases {
                let run = try await cli.run(arguments)
                #expect(run.status == status, "familysync \(arguments.joined(separator: " ")): \(run.stderr)")
                #expect(run.stderr.contains(message), "familysync \(arguments.joined(separator: " ")): \(run.stderr)")
                if status == 2 { #expect(run.stdout.isEmpty, "familysync \(arguments.joined(separator: " ")) printed: \(run.stdout)") }
            }
            #expect(try String(contentsOfFile: profileFile, encoding: .utf8) == before, "no bad input changed a profile")
            let queued = (try? String(contentsOfFile: cli.directory + "/state/johnny.json", encoding: .utf8)) ?? ""
            #expect(!queued.contains("app-") && !queued.contains("\"a\""), "nothing refused stays queued: \(queued)")
        }
    }
}
