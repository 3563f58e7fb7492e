import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// Erasure that leaves nothing (§15.3): in a family that used every part of the service, a child
/// member with two devices is deleted, and a parent's second device purged; then every table of
/// the catalog is read whole and none may name them. The rest of the family is where it was, and
/// its devices' old tokens are answered 410, so they fetch whole and drop what went.
@Suite struct ErasureCatalogTests {
    @Test func aDeletedMemberAndAPurgedDeviceAreInNoTableOfTheCatalog() async throws {
        try await withTestServer { server in
            let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!)
            let now = server.clock.now()
            let (family, parent) = try await FamilyDeletionCatalogTests.useEverything(anonymous, at: now)
            let johnny = try #require(try await parent.members().first { $0.name == "Johnny" })
            // A second device of Johnny's, with usage of its own, and an alert naming it.
            let invitation = try await parent.createPairing(.init(role: .child, memberId: johnny.id))
            let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Johnny's Mac", platform: .macos, timeZone: "UTC"))
            _ = try await parent.confirmPairing(invitation.pairing.id)
            let mac = anonymous.authenticated(as: accepted.credential)
            _ = try await mac.reportAlert(ReportAlertRequest(clientAlertID: UUID(), category: "gaming", usedMinutes: 15, message: "15 minutes of games"))
            _ = try await parent.setBudget(of: johnny.id, ["budgetID": .string("social"), "category": .string("social_media"), "period": .string("daily"), "dailyMinutes": .number(60), "enabled": .bool(true)])
            // A co-parent's phone that wrote a rule, then is purged.
            let coInvitation = try await parent.createPairing(.init(role: .parent))
            let coAccepted = try await anonymous.acceptPairing(qrPayload: coInvitation.qrPayload, device: .init(name: "Dad's phone", platform: .ios, timeZone: "UTC"))
            _ = try await parent.confirmPairing(coInvitation.pairing.id)
            let coParent = anonymous.authenticated(as: coAccepted.credential)
            let before = try await parent.databaseChanges(since: nil).changeToken
            _ = try await coParent.setBudget(of: johnny.id, ["budgetID": .string("games"), "category": .string("gaming"), "period": .string("daily"), "dailyMinutes": .number(30), "enabled": .bool(true)])
            let kept = try #require(try await parent.members().first { $0.name == "Grandma" })
            // Keyed writes (§1.2.1) about them, whose kept answers and paths name them: the parent's
            // command to Johnny's Mac and a save in his zone, and one of the co-parent's own.
            _ = try await parent.sendCommand(to: accepted.device.id, CreateCommandRequest(commandType: "block"), idempotencyKey: UUID().uuidString)
            _ = try await parent.save(
                [RecordOperation(operationType: .forceReplace, record: RecordInput(recordName: "note", recordType: "x-note", fields: ["for": .string("Johnny")]))],
                in: Member.zoneName(of: johnny.id), idempotencyKey: UUID().uuidString
            )
            _ = try await coParent.save(
                [RecordOperation(operationType: .forceReplace, record: RecordInput(recordName: "dads-note", recordType: "x-note", fields: ["text": .string("hi")]))],
                in: "family", idempotencyKey: UUID().uuidString
            )

            let erased = [johnny.id] + johnny.deviceIds + [accepted.device.id, coAccepted.device.id]
            let tables = try await FamilyDeletionCatalogTests.tables(server.postgres)
            let naming = try await FamilyDeletionCatalogTests.tablesNaming(erased, in: tables, server.postgres)
            #expect(naming.isSuperset(of: ["devices", "members", "zones", "records", "pairings", "device_health", "device_errors", "device_push_tokens", "audit_events", "idempotency_keys"]), "\(naming.sorted())")
            // The scan is live: the rest of the family (its parent, another member) is where it was.
            let me = try await parent.me()
            let rest = [kept.id, me.id, try #require(me.memberId)]

            try await parent.revokeDevice(coAccepted.device.id, purge: true)
            try await parent.deleteMember(johnny.id)

            let left = try await FamilyDeletionCatalogTests.tablesNaming(erased, in: tables, server.postgres)
            #expect(left.isEmpty, "after the erasure these tables still name them: \(left.sorted())")
            let keptAfter = try await FamilyDeletionCatalogTests.tablesNaming(rest, in: tables, server.postgres)
            #expect(keptAfter.isSuperset(of: ["devices", "members", "zones", "pairings", "audit_events"]), "\(keptAfter.sorted())")
            #expect(try await FamilyDeletionCatalogTests.tablesNaming([family.family], in: tables, server.postgres).contains("families"))
            // What the purged phone wrote stays, by an erased device; the erasures are audited by nobody named.
            let names = try await parent.members().map(\.name).sorted()
            #expect(names == ["Dad's phone", "Grandma", "Mom's iPhone"], "\(names)")
            let audit = try await parent.auditEvents().events
            #expect(audit.prefix(2).map(\.action) == ["member.deleted", "device.purged"])
            #expect(audit.prefix(2).allSatisfy { $0.subject == nil })
            // An old token is past the horizon: the device fetches whole.
            do {
                _ = try await parent.databaseChanges(since: before)
                Issue.record("a token from before the erasure was taken")
            } catch {
                #expect((error as? FamilySyncError)?.code == .changeTokenExpired, "\(error)")
            }
            let zones = try await parent.databaseChanges(since: nil).zones.map(\.zoneName)
            #expect(!zones.contains { $0.contains(johnny.id.lowercased) } && zones.contains("family"))
        }
    }
}
