import FamilySyncCore
import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// Migration 0018 on a database whose `parent-pin` record still carries the verifier (salt,
/// iterations, hash) a child's device could search offline: the verifier moves to the server's
/// own table, the record is rewritten through the change log as the marker (a new sequence, so
/// devices sync it and drop their copy), and the PIN still checks online.
@Suite struct ParentPINMigrationTests {
    @Test func theVerifierLeavesTheRecordAndThePINStillChecks() async throws {
        try await withServingDatabase(migrated: false) { database, client, _ in
            try await Migrator(migrations: Migration.all.filter { $0.version <= 5 }, logger: testLogger).migrate(client: client)
            let family = UUID(), parent = UUID(), child = UUID()
            let statements: [PostgresQuery] = [
                "INSERT INTO families (family_id, created_at, change_seq) VALUES (\(family), now(), 3)",
                "INSERT INTO zones (family_id, zone_name, created_at, changed_seq) VALUES (\(family), 'family', now(), 1)",
                """
                INSERT INTO devices (family_id, device_id, role, name, child_name, platform, time_zone, status, credential_hash, registered_at, changed_seq) VALUES
                (\(family), \(parent), 'parent', 'Mom''s iPhone', NULL, 'ios', 'UTC', 'active', decode(repeat('ab', 32), 'hex'), now() - interval '3 days', 1),
                (\(family), \(child), 'child', 'Johnny''s iPad', 'Johnny', 'ipados', 'UTC', 'active', decode(repeat('cd', 32), 'hex'), now() - interval '2 days', 2)
                """,
            ]
            for statement in statements { try await client.query(statement, logger: testLogger) }
            try await Migrator(migrations: Migration.all.filter { $0.version <= 17 }, logger: testLogger).migrate(client: client)
            // The record as the server wrote it before: the verifier in the member's zone.
            let legacy = try ParentPIN(pin: "2468")
            let fields = #"{"algorithm":"PBKDF2-HMAC-SHA256","salt":"\#(Data(legacy.salt).base64EncodedString())","iterations":\#(legacy.iterations),"hash":"\#(Data(legacy.hash).base64EncodedString())"}"#
            let zone = Member.zoneName(of: child)
            // The child's member has no row of tries yet; the parent's member has one (a wrong try
            // once), and the same PIN's record: both take their verifier.
            for (member, seq) in [(child, 9), (parent, 10)] {
                try await client.query(
                    """
                    INSERT INTO records (family_id, zone_name, record_name, record_type, fields, change_tag, created_at, created_by, modified_at, modified_by, modified_role, client_modified_at, seq)
                    VALUES (\(family), \(Member.zoneName(of: member)), 'parent-pin', 'DeviceSettings', \(fields)::jsonb, 't1', now(), \(parent), now(), \(parent), 'parent', now(), \(seq))
                    """,
                    logger: testLogger
                )
            }
            try await client.query("INSERT INTO parent_pin_attempts (family_id, member_id, failures) VALUES (\(family), \(parent), ARRAY[now()])", logger: testLogger)
            try await client.query("UPDATE families SET change_seq = 10 WHERE family_id = \(family)", logger: testLogger)

            try await Migrator(migrations: Migration.all, logger: testLogger).migrate(client: client)
            for member in [child, parent] {
                let kept = try await client.query(
                    "SELECT salt, iterations, hash, record_rewrite_pending FROM parent_pin_attempts WHERE family_id = \(family) AND member_id = \(member)", logger: testLogger
                ).decode((ByteBuffer, Int, ByteBuffer, Bool).self).first { _ in true }
                let (salt, iterations, hash, pending) = try #require(kept)
                #expect(Array(salt.readableBytesView) == legacy.salt && iterations == legacy.iterations && Array(hash.readableBytesView) == legacy.hash && pending)
            }

            let clock = ManualClock()
            let store = PostgresParentPINStore(changeLog: ChangeLog(database: database, logger: testLogger), clock: clock, logger: testLogger)
            #expect(try await store.rewriteRecordsStillCarryingVerifiers() == 2)
            #expect(try await store.rewriteRecordsStillCarryingVerifiers() == 0)
            let record = try await client.query(
                "SELECT fields::text, seq, modified_role FROM records WHERE family_id = \(family) AND zone_name = \(zone) AND record_name = 'parent-pin'", logger: testLogger
            ).decode((String, Int64, String).self).first { _ in true }
            let (text, seq, role) = try #require(record)
            let marker = try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
            #expect(ParentPIN.isMarker(marker) && !marker.values.contains(JSONValue.string(Data(legacy.hash).base64EncodedString())), "\(text)")
            #expect(seq > 10 && role == "server", "a new version, so that devices sync it")
            #expect(try await store.verify(memberID: child, familyID: family) { $0.matches("2468") })
            #expect(try await !store.verify(memberID: child, familyID: family) { $0.matches("1357") })

            // During a rolling upgrade an instance still on the earlier version sets a PIN: the
            // verifier into the record, its row of tries gone. A check adopts it, and the next
            // round rewrites the record.
            let again = try ParentPIN(pin: "8642")
            let againFields = #"{"algorithm":"PBKDF2-HMAC-SHA256","salt":"\#(Data(again.salt).base64EncodedString())","iterations":\#(again.iterations),"hash":"\#(Data(again.hash).base64EncodedString())"}"#
            try await client.query("UPDATE records SET fields = \(againFields)::jsonb WHERE family_id = \(family) AND zone_name = \(zone) AND record_name = 'parent-pin'", logger: testLogger)
            try await client.query("DELETE FROM parent_pin_attempts WHERE family_id = \(family) AND member_id = \(child)", logger: testLogger)
            #expect(try await store.verify(memberID: child, familyID: family) { $0.matches("8642") })
            #expect(try await store.rewriteRecordsStillCarryingVerifiers() == 1)
            #expect(try await store.verify(memberID: child, familyID: family) { $0.matches("8642") })
        }
    }
}
