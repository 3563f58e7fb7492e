import FamilySyncCore
import FamilySyncTestSupport
import Foundation
import Testing

/// `familysync fleet` as an operator runs it (PROTOCOL §10.1): a token made for `serve`, then the
/// weekly tracking report with it, as text and JSON; a wrong token and a bad week are refused.
@Suite(.timeLimit(.minutes(3))) struct FleetCommandTests {
    @Test func anOperatorMakesATokenAndReadsTheWeeksReport() async throws {
        try await withTemporaryDirectory { directory in
            let made = try await ServerProcess.start(["fleet", "token"], workingDirectory: directory)
            #expect(try await made.waitForExit() == .exited(0))
            let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(token.hasPrefix("fso1.") && token.count == 48, "\(token)")
            try (token + "\n").write(toFile: directory + "/operator-token", atomically: true, encoding: .utf8)

            try await withCLISession(serverArguments: ["--operator-token-file", directory + "/operator-token"]) { cli in
                try await cli.ok(["family", "create", "--name", "Mom's iPhone", "--platform", "ios", "--time-zone", "UTC", "--profile", "mom"])
                let invitation = try await cli.ok(["pair", "start", "--child-name", "Johnny", "--profile", "mom", "--json"]).json()
                try await cli.ok(["pair", "accept", try #require(invitation["qrPayload"] as? String), "--name", "Johnny's iPad", "--platform", "ipados", "--time-zone", "UTC", "--profile", "johnny"])
                try await cli.ok(["pair", "confirm", "--yes", "--profile", "mom"])
                // The server's clock is the real one: the week is the one of the heartbeat, taken
                // again after it in case it ran across Sunday's midnight (UTC, as a UTC device's).
                let weekBefore = ISOWeek(containing: Date()).description
                try await cli.ok(["health", "report", "--error", "record_usage:intervalDidStart:disk full", "--profile", "johnny"])
                var week = ISOWeek(containing: Date()).description
                if week != weekBefore,
                    try await cli.ok(["fleet", "report", "--week", week, "--json", "--token-file", directory + "/operator-token"]).json()["total"]
                        .flatMap({ ($0 as? [String: Any])?["devices"] as? Int }) == 0
                { week = weekBefore }
                let asOperator = ["FAMILYSYNC_OPERATOR_TOKEN": token]
                let text = try await cli.ok(["fleet", "report", "--week", week], environment: asOperator).stdout
                #expect(text.hasPrefix("TRACKING REPORT \(week)") && text.contains("all devices") && text.contains("ipados"), "\(text)")
                let json = try await cli.ok(["fleet", "report", "--week", week, "--json", "--token-file", directory + "/operator-token"]).json()
                let total = try #require(json["total"] as? [String: Any])
                #expect(total["devices"] as? Int == 1 && total["events"] as? Int == 1 && total["failures"] as? Int == 1, "\(json)")
                let groups = try #require(json["groups"] as? [[String: Any]])
                // The CLI's heartbeat names the system it runs on.
                #expect(groups.count == 1 && (groups[0]["osVersions"] as? [[String: Any]])?.first?["osVersion"] as? String != nil, "\(groups)")

                let wrong = try await cli.run(["fleet", "report"], environment: ["FAMILYSYNC_OPERATOR_TOKEN": "fso1." + String(repeating: "x", count: 43)])
                #expect(wrong.status == 2 && wrong.stderr.contains("refused the operator token"), "\(wrong.stderr)")
                let device = try await cli.run(["fleet", "report"], environment: ["FAMILYSYNC_OPERATOR_TOKEN": ""])
                #expect(device.status == 2 && device.stderr.contains("needs the operator token"), "\(device.stderr)")
                let badWeek = try await cli.run(["fleet", "report", "--week", "2026-48"], environment: asOperator)
                #expect(badWeek.status == 2 && badWeek.stderr.contains("ISO week"), "\(badWeek.stderr)")
            }
        }
    }
}
