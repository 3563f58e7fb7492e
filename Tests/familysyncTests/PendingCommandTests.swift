import FamilySyncTestSupport
import Foundation
import Testing

/// `familysync pending` and `--queue`: a parent's changes made while the server cannot be reached
/// wait in the profile's state, and reach the child once, after reconnecting (docs/walkthrough.md's walk).
@Suite(.timeLimit(.minutes(3))) struct PendingCommandTests {
    @Test func aChangeMadeOfflineArrivesOnceAfterReconnecting() async throws {
        try await withCLISession { cli in
            try await ClientCommandTests.pairedFamily(cli)
            let members = try #require(try await cli.ok(["members", "--profile", "mom", "--json"]).json()["members"] as? [[String: Any]])
            let johnny = try #require(members.first { $0["name"] as? String == "Johnny" }?["id"] as? String)
            let devices = try #require(try await cli.ok(["devices", "--profile", "mom", "--json"]).json()["devices"] as? [[String: Any]])
            let ipad = try #require(devices.first { $0["role"] as? String == "child" }?["id"] as? String)
            // Nothing listens here: the server is out of reach.
            let down = "http://127.0.0.1:\(try freePort())"

            let budget = try await cli.ok(["budgets", "set", "--member", johnny, "--category", "reward", "--daily", "45", "--queue", "--profile", "mom", "--server", down]).stdout
            #expect(budget.contains("Queued: save Budget budget-reward in member-\(johnny)") && budget.contains("1 change waiting"), "\(budget)")
            try await cli.ok(["command", "send", "block", "--child", ipad, "--queue", "--profile", "mom", "--server", down])
            let byName = try await cli.run(["budgets", "set", "--member", "Johnny", "--category", "reward", "--daily", "45", "--queue", "--profile", "mom"])
            #expect(byName.status != 0 && byName.stderr.contains("by id"), "\(byName.stderr)")

            let listed = try await cli.ok(["pending", "--profile", "mom"]).stdout
            #expect(listed.contains("save Budget budget-reward") && listed.contains("block command to \(ipad)"), "\(listed)")
            let offline = try await cli.run(["pending", "send", "--profile", "mom", "--server", down])
            #expect(offline.status != 0 && offline.stderr.contains("TRY_AGAIN_LATER"), "\(offline.stderr)")
            #expect(try await cli.ok(["pending", "--profile", "mom", "--json"]).jsonArray().count == 2)

            // Back online: sent in the order made, each once.
            let sent = try await cli.ok(["pending", "send", "--profile", "mom"]).stdout.split(separator: "\n")
            #expect(sent.count == 2, "\(sent)")
            #expect(sent.first?.contains("save Budget budget-reward in member-\(johnny): created") == true, "\(sent)")
            #expect(sent.last?.contains("block command to \(ipad): sent, command") == true, "\(sent)")
            #expect(try await cli.ok(["pending", "--profile", "mom"]).stdout.contains("Nothing waiting to be sent."))
            #expect(try await cli.ok(["pending", "send", "--profile", "mom"]).stdout.contains("Nothing waiting to be sent."))

            let watched = try await cli.ok(["watch", "--once", "--profile", "johnny"]).stdout
            #expect(watched.components(separatedBy: "budget-reward").count - 1 == 1, "\(watched)")
            #expect(watched.components(separatedBy: "block pending").count - 1 == 1, "\(watched)")
            let commands = try await cli.ok(["command", "list", "--profile", "mom", "--json"]).json()["commands"] as? [[String: Any]]
            #expect(commands?.count == 1)
        }
    }
}
