import FamilySyncTestSupport
import Foundation
import Testing

/// `familysync changes`: several zones' pages in one request (§5.5), their tokens to pass back,
/// and a zone's error reported beside the others.
@Suite(.timeLimit(.minutes(3))) struct ChangesCommandTests {
    @Test func severalZonesInOneRequestAndTheirTokens() async throws {
        try await withCLISession { cli in
            try await ClientCommandTests.pairedFamily(cli)
            try await cli.ok(["config", "set", "--app", "app-khan", "--name", "Khan Academy", "--category", "learning", "--points", "5", "--profile", "mom"])
            let child = try await cli.ok(["devices", "--profile", "johnny", "--json"]).json()
            let zone = try #require(((child["devices"] as? [[String: Any]])?.first?["zoneName"]) as? String)

            // Every zone the child sees, when none is named.
            let all = try await cli.ok(["changes", "--profile", "johnny"]).stdout
            #expect(all.contains("\(zone)  AppConfiguration") && all.contains("Khan Academy: learning, 5 points a minute, not blocked"), "\(all)")
            #expect(all.contains("ZONE") && all.contains("family") && all.contains("member-"), "\(all)")

            // Named zones, as JSON: the server's answer, in the order asked.
            let first = try await cli.ok(["changes", "--zone", zone, "--zone", "family", "--limit", "1", "--profile", "johnny", "--json"]).json()
            let entries = try #require(first["zones"] as? [[String: Any]])
            #expect(entries.map { $0["zoneName"] as? String } == [zone, "family"])
            #expect((entries[0]["records"] as? [Any])?.count == 1 && entries[0]["moreComing"] as? Bool == true, "a command and its configuration, a page of one")
            let token = try #require(entries[0]["changeToken"] as? String)

            // Passed back: the rest, and a zone the child may not see beside it.
            let next = try await cli.run(["changes", "--since", "\(zone)=\(token)", "--zone", "nowhere", "--profile", "johnny"])
            #expect(next.status == 1, "\(next.stderr)")
            #expect(next.stdout.contains("\(zone)  ") && next.stdout.contains("1        no"), "\(next.stdout)")
            #expect(next.stdout.split(separator: "\n").contains { $0.hasPrefix("nowhere ") && $0.hasSuffix("-        -     error ZONE_NOT_FOUND: No such zone.") }, "\(next.stdout)")
            #expect(next.stderr.contains("1 zone answered an error: nowhere: ZONE_NOT_FOUND: No such zone."), "\(next.stderr)")

            let bad = try await cli.run(["changes", "--since", "family", "--profile", "johnny"])
            #expect(bad.status == 2 && bad.stderr.contains("--since is ZONE=TOKEN"), "\(bad.stderr)")
            let badLimit = try await cli.run(["changes", "--limit", "0", "--profile", "johnny"])
            #expect(badLimit.status == 2 && badLimit.stderr.contains("--limit is 1 to 1000"), "\(badLimit.stderr)")
        }
    }
}
