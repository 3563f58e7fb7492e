import FamilySyncCore
import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// Migration 0006 on a database filled by the previous schema (0001–0005), as a version 1 server
/// left it: every confirmed device gets a member of its own and its member zone, nothing is lost,
/// and devices holding a database token see the new zones.
@Suite struct MemberMigrationTests {
    @Test func everyConfirmedDeviceGetsAMemberAndNothingIsLost() async throws {
        try await withTestDatabase(migrated: false) { client, _ in
            try await Migrator(migrations: Migration.all.filter { $0.version <= 5 }, logger: testLogger).migrate(client: client)
            let family = UUID(), parent = UUID(), child = UUID(), awaiting = UUID(), revoked = UUID()
            let statements: [PostgresQuery] = [
                "INSERT INTO families (family_id, created_at, change_seq) VALUES (\(family), now(), 7)",
                "INSERT INTO zones (family_id, zone_name, created_at, changed_seq) VALUES (\(family), 'family', now(), 1)",
                """
                INSERT INTO devices (family_id, device_id, role, name, child_name, platform, time_zone, status, credential_hash, registered_at, changed_seq) VALUES
                (\(family), \(parent), 'parent', 'Mom''s iPhone', NULL, 'ios', 'UTC', 'active', decode(repeat('ab', 32), 'hex'), now() - interval '3 days', 1),
                (\(family), \(child), 'child', 'Johnny''s iPad', 'Johnny', 'ipados', 'UTC', 'active', decode(repeat('cd', 32), 'hex'), now() - interval '2 days', 3),
                (\(family), \(awaiting), 'child', 'New iPad', 'Ann', 'ipados', 'UTC', 'awaiting_confirmation', decode(repeat('ef', 32), 'hex'), now(), 6),
                (\(family), \(revoked), 'child', 'Old iPod', 'Bob', 'ios', 'UTC', 'revoked', NULL, now() - interval '1 day', 5)
                """,
                "INSERT INTO zones (family_id, zone_name, child_device_id, created_at, changed_seq) VALUES (\(family), \(Device.zoneName(forChild: child)), \(child), now(), 4)",
                """
                INSERT INTO records (family_id, zone_name, record_name, record_type, fields, change_tag, created_at, created_by, modified_at, modified_by, modified_role, client_modified_at, seq)
                VALUES (\(family), \(Device.zoneName(forChild: child)), 'app-1', 'AppConfiguration', '{"logicalID":"a"}', 't1', now(), \(parent), now(), \(parent), 'parent', now(), 4)
                """,
                """
                INSERT INTO pairings (family_id, pairing_id, role, child_name, status, created_by, device_id, token_hash, created_at, expires_at)
                VALUES (\(family), \(UUID()), 'child', 'Ann', 'accepted', \(parent), \(awaiting), decode(repeat('01', 32), 'hex'), now(), now() + interval '10 minutes')
                """,
            ]
            for statement in statements { try await client.query(statement, logger: testLogger) }
            let before = try await databaseFingerprint(client)

            #expect(try await Migrator(migrations: Migration.all.filter { $0.version <= 6 }, logger: testLogger).migrate(client: client) == [6])

            // Members: one per confirmed device, its id the device's, named after the child.
            let members = try await client.query(
                "SELECT m.member_id, m.name, m.role, d.device_id, d.tracked FROM members m JOIN devices d ON d.family_id = m.family_id AND d.member_id = m.member_id ORDER BY m.name",
                logger: testLogger
            ).decode((UUID, String, String, UUID, Bool).self).reduce(into: [String]()) { $0.append("\($1.1) \($1.2) \($1.0 == $1.3) tracked:\($1.4)") }
            #expect(members == ["Bob child true tracked:true", "Johnny child true tracked:true", "Mom's iPhone parent true tracked:false"])
            let awaitingMember = try await client.query("SELECT member_id FROM devices WHERE device_id = \(awaiting)", logger: testLogger).decode(UUID?.self).first { _ in true }
            #expect(awaitingMember == .some(nil), "a device awaiting confirmation joins its member when confirmed")

            // Their zones, stamped after the family's last change, so that tokens see them.
            var zones: [String: Int64] = [:]
            let zoneRows = try await client.query("SELECT zone_name, changed_seq FROM zones WHERE member_id IS NOT NULL", logger: testLogger)
            for try await (name, sequence) in zoneRows.decode((String, Int64).self) { zones[name] = sequence }
            #expect(Set(zones.keys) == Set([parent, child, revoked].map(Member.zoneName(of:))))
            #expect(zones.values.allSatisfy { $0 == 8 })
            #expect(try await client.query("SELECT change_seq FROM families", logger: testLogger).decode(Int64.self).first { _ in true } == 8)

            // Nothing of the old data is lost: the rows of every table that existed, as they were
            // but for the new columns.
            let after = try await databaseFingerprint(client)
            #expect(after["records"] == before["records"])
            let kept = try await client.query(
                "SELECT count(*)::int FROM zones WHERE member_id IS NULL", logger: testLogger
            ).decode(Int.self).first { _ in true }
            #expect(kept == 2)
            let statuses = try await client.query("SELECT status FROM devices ORDER BY status", logger: testLogger)
                .decode(String.self).reduce(into: [String]()) { $0.append($1) }
            #expect(statuses == ["active", "active", "awaiting_confirmation", "revoked"])
        }
    }
}
