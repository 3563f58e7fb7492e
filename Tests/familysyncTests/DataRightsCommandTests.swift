import FamilySyncTestSupport
import Foundation
import Testing

/// The closing walkthrough of a family's data rights (§15), with the CLI: a parent sets how long
/// usage is kept, reads the audit log, exports the family and one child, and deletes the child;
/// the child's device is then refused and the audit log says a member went, naming nobody.
@Suite(.timeLimit(.minutes(3))) struct DataRightsCommandTests {
    @Test func aParentSetsRetentionExportsAndDeletesAChild() async throws {
        try await withCLISession { cli in
            try await cli.pairMomAndJohnny()
            try "logicalID,displayName,category,sessionStart,sessionEnd,earnedPoints\ngame,Brawl Stars,reward,2026-11-20T10:00:00Z,2026-11-20T10:50:00Z,0\n"
                .write(toFile: cli.directory + "/usage.csv", atomically: true, encoding: .utf8)
            try await cli.ok(["usage", "upload", "usage.csv", "--profile", "johnny"])

            // Retention: one kind set, then another; the first stays.
            try await cli.ok(["family", "retention", "--usage-sessions", "30", "--profile", "mom"])
            let retention = try await cli.ok(["family", "retention", "--audit", "90", "--profile", "mom"]).stdout
            #expect(retention.contains("usageSessions") && retention.contains("audit"), "\(retention)")
            let days = try #require(try await cli.ok(["family", "retention", "--profile", "mom", "--json"]).json()["days"] as? [String: Int])
            #expect(days["usageSessions"] == 30 && days["audit"] == 90 && days["summaries"] == 36500)
            let childTries = try await cli.run(["family", "retention", "--profile", "johnny"])
            #expect(childTries.status == 2 && childTries.stderr.contains("for a parent device"), "\(childTries.stderr)")

            // The audit log: who set it, from where.
            let audit = try await cli.ok(["audit", "--profile", "mom"]).stdout
            #expect(audit.contains("retention.set") && audit.contains("Mom's iPhone") && audit.contains("127.0.0.1"), "\(audit)")

            // The family's export and Johnny's, each a tar the system reads.
            let family = try await cli.ok(["export", "--output", "family.tar", "--profile", "mom"]).stdout
            #expect(family.contains("Wrote") && family.contains("records/UsageRecord"), "\(family)")
            let johnny = try await cli.ok(["export", "--member", "Johnny", "--output", "johnny.tar", "--profile", "mom", "--json"]).json()
            #expect((johnny["lines"] as? [String: Int])?["records/UsageRecord"] == 1)
            for file in ["family.tar", "johnny.tar"] {
                let listing = try SystemTar.run(["-tf", cli.directory + "/" + file]).output
                #expect(listing.hasPrefix("manifest.json\n") && listing.hasSuffix("counts.json\n"), "\(file): \(listing)")
            }

            // Johnny deleted: his device is refused, the log names nobody for it.
            try await cli.ok(["members", "remove", "Johnny", "--yes", "--profile", "mom"])
            let refused = try await cli.run(["devices", "--profile", "johnny"])
            #expect(refused.status == 4, "\(refused.stderr)")
            let after = try await cli.ok(["audit", "--limit", "1", "--json", "--profile", "mom"]).json()
            let event = try #require((after["events"] as? [[String: Any]])?.first)
            #expect(event["action"] as? String == "member.deleted" && event["subject"] == nil && event["memberId"] == nil)
            let members = try await cli.ok(["members", "--profile", "mom"]).stdout
            #expect(!members.contains("Johnny"), "\(members)")
        }
    }
}
