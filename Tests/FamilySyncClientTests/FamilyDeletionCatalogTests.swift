import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// Deletion that leaves nothing: a family that used every part of the service is
/// deleted, then every table of the catalog is read whole and none may still name the family,
/// its devices, members or pairings. A table added later that the deletion forgets fails this
/// without any change here. A second family, kept, must be found by the same scan.
@Suite struct FamilyDeletionCatalogTests {
    /// The ids one family's use of the service leaves in the database.
    struct FamilyIDs {
        var family: UUID
        var others: [UUID] = []
        var all: [UUID] { [family] + others }
    }

    @Test func aDeletedFamilyIsInNoTableOfTheCatalog() async throws {
        try await withTestServer { server in
            let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!)
            let (deleted, deletedParent) = try await Self.useEverything(anonymous, at: server.clock.now())
            let (kept, _) = try await Self.useEverything(anonymous, at: server.clock.now())
            let tables = try await Self.tables(server.postgres)
            #expect(tables.count >= 15, "the catalog read found \(tables)")
            let before = try await Self.tablesNaming(deleted.all, in: tables, server.postgres)
            #expect(before.isSuperset(of: [
                "families", "devices", "members", "zones", "records", "pairings", "device_health", "device_errors", "device_push_tokens",
                "parent_pin_attempts", "recovery_codes", "sign_ins",
            ]), "\(before.sorted())")

            try await deletedParent.deleteFamily()

            let left = try await Self.tablesNaming(deleted.all, in: tables, server.postgres)
            #expect(left.isEmpty, "after the family's deletion these tables still name it: \(left.sorted())")
            // The scan is live: the kept family is where it was.
            let keptTables = try await Self.tablesNaming(kept.all, in: tables, server.postgres)
            #expect(keptTables == before, "the kept family's tables \(keptTables.sorted()), the deleted one's before \(before.sorted())")
        }
    }

    /// A family with a parent, a child paired and one pending, another member, the child's app
    /// configuration, usage, health with an error, a PIN with a wrong try, a push token, a new
    /// recovery code and a browser signed in by a code.
    static func useEverything(_ anonymous: FamilySyncClient, at now: Date) async throws -> (FamilyIDs, FamilySyncClient) {
        let created = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "UTC"))
        var ids = FamilyIDs(family: created.family.id, others: [created.device.id])
        let parent = anonymous.authenticated(as: created.credential)
        let invitation = try await parent.createPairing(.init(role: .child, childName: "Johnny"))
        let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Johnny's iPad", platform: .ipados, timeZone: "UTC"))
        _ = try await parent.confirmPairing(invitation.pairing.id)
        let child = anonymous.authenticated(as: accepted.credential)
        let johnny = try #require(try await child.me().memberId)
        ids.others += [accepted.device.id, invitation.pairing.id, johnny]
        ids.others.append(try await parent.createPairing(.init(role: .child, childName: "Jane")).pairing.id)
        ids.others.append(try await parent.createMember(name: "Grandma", role: .parent).id)
        ids.others.append(try #require(try await parent.me().memberId))

        _ = try await parent.saveAppConfiguration(
            ["logicalID": .string("app-game"), "displayName": .string("Game"), "category": .string("reward"), "isEnabled": .bool(true), "blockingEnabled": .bool(false)],
            named: "app-game", in: Device.zoneName(forChild: accepted.device.id)
        )
        let start = now.addingTimeInterval(-7_200)
        _ = try await child.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: [
            UsageRecordBody(recordID: UUID().uuidString, logicalID: "app-game", displayName: "Game", category: "reward",
                            sessionStart: start, sessionEnd: start.addingTimeInterval(600), totalSeconds: 600),
        ]))
        _ = try await child.reportHealth(HealthReportRequest(heartbeatAt: now, monitoringActive: true, memoryUsageMB: 4.5, errors: [
            ExtensionErrorBody(id: UUID(), timestamp: now, eventName: "intervalDidStart", action: "record_usage", success: false, errorDescription: "disk full"),
        ]))
        try await parent.setParentPIN("73950284", of: johnny)
        #expect(try await child.verifyParentPIN("1111", of: johnny) == false)
        // Each family's own token: a token registered again elsewhere moves to that device.
        try await child.registerPush(token: (UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").lowercased(), topic: "com.example.screentime")
        _ = try await parent.issueRecoveryCode()

        let signIn = try await anonymous.startSignIn(device: .init(name: "Chrome on Linux", platform: .web, timeZone: "UTC"))
        let taken = try await parent.takeSignIn(code: signIn.signIn.code)
        let claimed = try await anonymous.claimSignIn(secret: signIn.secret)
        _ = try await parent.confirmPairing(taken.id)
        ids.others.append(taken.id)
        ids.others.append(try #require(claimed.device?.id))
        return (ids, parent)
    }

    /// Every table of the schema the server migrated.
    static func tables(_ postgres: PostgresClient) async throws -> [String] {
        let rows = try await postgres.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename", logger: testLogger)
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    /// The tables with a row whose text (every column, jsonb and names included) holds any of `ids`.
    static func tablesNaming(_ ids: [UUID], in tables: [String], _ postgres: PostgresClient) async throws -> Set<String> {
        let pattern = ids.map(\.lowercased).joined(separator: "|")
        var found: Set<String> = []
        for table in tables {
            var binds = PostgresBindings()
            binds.append(pattern)
            // Table names come from the catalog, quoted as identifiers.
            let query = PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \"\(table)\" AS row WHERE lower(row::text) ~ $1", binds: binds)
            let rows = try await postgres.query(query, logger: testLogger)
            for try await count in rows.decode(Int.self) where count > 0 { found.insert(table) }
        }
        return found
    }
}
