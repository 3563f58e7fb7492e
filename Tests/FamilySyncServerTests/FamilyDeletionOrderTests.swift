import FamilySyncCore
import FamilySyncPostgres
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// For Citus: a family's deletion must not hang on the order in which
/// its foreign keys' cascade triggers fire. Each Citus shard has its own copies of the
/// constraints, made in another order than the migrations made them on one PostgreSQL, and a
/// family's deletion by cascade failed there: a pairing naming a member was checked by
/// `pairings_member_fkey` when its member went, before the cascade from `devices` had removed it.
///
/// The test gives one PostgreSQL the orders Citus may fire them in, just before the deletion:
/// `reversed` drops every `ON DELETE CASCADE` key and makes it again, the last made first, so that
/// their triggers fire in the opposite order (a deletion by cascade then fails with Citus's
/// `pairings_member_fkey` error); `noCascade` makes every cascade `NO ACTION`, so that nothing is
/// deleted for the deletion at all: it must delete each child before its parent itself. A family
/// that used everything (`ImmutableUpsertTests.useEverything`: a pairing naming a member, push
/// outbox rows, health, a PIN's tries, audit counts, a sign-in, an Apple account…) is deleted;
/// no table with a `family_id` keeps a row of it, and another family keeps every row it had.
@Suite struct FamilyDeletionOrderTests {
    enum CascadeOrder: String, CaseIterable, Sendable, CustomStringConvertible {
        case reversed, noCascade
        var description: String { rawValue }

        /// Every cascading foreign key of the schema dropped, then made again in the opposite
        /// order of its making: as it was (`reversed`) or without its cascade (`noCascade`).
        var change: String {
            """
            DO $$
            DECLARE
                key record;
                tables text[] := '{}';
                names text[] := '{}';
                definitions text[] := '{}';
            BEGIN
                FOR key IN
                    SELECT conrelid::regclass::text AS relation, conname::text AS name, pg_get_constraintdef(oid) AS definition
                    FROM pg_constraint WHERE contype = 'f' AND confdeltype = 'c' AND connamespace = current_schema()::regnamespace
                    ORDER BY oid DESC
                LOOP
                    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', key.relation, key.name);
                    tables := tables || key.relation;
                    names := names || key.name;
                    definitions := definitions || \(self == .noCascade ? "replace(key.definition, ' ON DELETE CASCADE', '')" : "key.definition");
                END LOOP;
                FOR i IN 1..coalesce(array_length(names, 1), 0) LOOP
                    EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', tables[i], names[i], definitions[i]);
                END LOOP;
            END $$
            """
        }
    }

    /// The tables with a `family_id` column.
    static func familyTables(_ postgres: PostgresClient) async throws -> [String] {
        let rows = try await postgres.query(
            """
            SELECT c.relname::text FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND a.attname = 'family_id' AND NOT a.attisdropped ORDER BY 1
            """,
            logger: testLogger
        )
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    /// The family's rows in each table that has any.
    static func rows(of familyID: UUID, in tables: [String], _ postgres: PostgresClient) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in tables {
            var binds = PostgresBindings()
            binds.append(familyID)
            // Table names come from the catalog, quoted as identifiers.
            let rows = try await postgres.query(PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \"\(table)\" WHERE family_id = $1", binds: binds), logger: testLogger)
            for try await count in rows.decode(Int.self) where count > 0 { counts[table] = count }
        }
        return counts
    }

    /// The deletion's list names every table of a family's data that a foreign key joins, each
    /// before every table its keys reference, as the migrated catalog has them.
    @Test func theDeletionsTablesAreEveryJoinedTableChildrenFirst() async throws {
        let order = PostgresFamilyStore.familyTablesChildrenFirst
        try await withTestDatabase(isolation: .database) { client, _ in
            let rows = try await client.query(
                """
                SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint
                WHERE contype = 'f' AND connamespace = current_schema()::regnamespace
                """,
                logger: testLogger
            )
            var keys: [(table: String, referenced: String)] = []
            for try await (table, referenced) in rows.decode((String, String).self) { keys.append((table, referenced)) }
            #expect(keys.count > 20, "the catalog was read: \(keys.count) keys")
            #expect(Set(order) == Set(keys.flatMap { [$0.table, $0.referenced] }), "\(order)")
            #expect(order.count == Set(order).count)
            for key in keys where key.table != key.referenced {
                let (child, parent) = (order.firstIndex(of: key.table) ?? .max, order.firstIndex(of: key.referenced) ?? -1)
                #expect(child < parent, "\(key.table) references \(key.referenced): it must be emptied first")
            }
        }
    }

    @Test(arguments: CascadeOrder.allCases)
    func aFamilyIsDeletedWhateverOrderItsCascadesFireIn(_ order: CascadeOrder) async throws {
        try await withWebhookReceiver { receiver, webhook in
            try await withTestServer(push: PushOutboxTests.settings(webhook, receiver), isolation: .database) { server in
                let deleted = try await ImmutableUpsertTests.useEverything(server, receiver: receiver)
                let kept = try await ImmutableUpsertTests.useEverything(server, receiver: receiver)
                let tables = try await Self.familyTables(server.postgres)
                let before = try await Self.rows(of: deleted.parent.familyID, in: tables, server.postgres)
                #expect(Set(before.keys).isSuperset(of: [
                    "families", "devices", "members", "pairings", "zones", "records", "push_outbox", "device_push_tokens", "device_health",
                    "parent_pin_attempts", "audit_events", "audit_reads", "family_retention", "apple_accounts", "apple_subjects", "recovery_codes", "sign_ins",
                ]), "\(before.keys.sorted())")
                let keptBefore = try await Self.rows(of: kept.parent.familyID, in: tables, server.postgres)

                try await server.postgres.query(PostgresQuery(unsafeSQL: order.change), logger: testLogger)
                // The store itself, as `DELETE /v1/families/me` calls it: a failure shows the database's error whole.
                let families = PostgresFamilyStore(changeLog: ChangeLog(database: server.database, logger: testLogger), clock: server.clock, logger: testLogger)
                do {
                    try await families.delete(familyID: deleted.parent.familyID, as: .server)
                } catch {
                    Issue.record("the deletion failed: \(String(reflecting: error))")
                }

                #expect(try await Self.rows(of: deleted.parent.familyID, in: tables, server.postgres) == [:])
                #expect(try await Self.rows(of: kept.parent.familyID, in: tables, server.postgres) == keptBefore)
            }
        }
    }
}
