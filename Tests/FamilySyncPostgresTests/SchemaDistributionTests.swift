import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The schema, as the catalog of a migrated database tells it, is ready to be distributed by
/// family (Citus, deploy/citus.sql): every table of a family's data carries `family_id`, in its
/// primary key, its unique indexes and its foreign keys; the lookup tables stand alone; and
/// deploy/citus.sql places every table as this test classifies it.
@Suite struct SchemaDistributionTests {
    /// Tables that are not a family's data, and how each is placed.
    static let referenceTables: Set<String> = ["server_secrets"]
    static let coordinatorTables: Set<String> = ["schema_migrations"]
    /// From something else to a family: distributed by what is looked up.
    static let lookupTables: [String: String] = ["recovery_codes": "code_hash", "apple_subjects": "apple_sub", "sign_ins": "code_hash"]

    struct Catalog {
        var tables: Set<String> = []
        /// Table → its columns.
        var columns: [String: Set<String>] = [:]
        /// Table → the columns of each unique index (the primary key's among them).
        var uniqueIndexes: [String: [(name: String, columns: [String])]] = [:]
        /// Each foreign key: its table and columns, the table and columns it references.
        var foreignKeys: [(name: String, table: String, columns: [String], referenced: String, referencedColumns: [String])] = []
    }

    static func catalog(_ client: PostgresClient) async throws -> Catalog {
        var catalog = Catalog()
        let columns = try await client.query(
            """
            SELECT c.relname::text, a.attname::text FROM pg_attribute a
            JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
            """,
            logger: testLogger
        )
        for try await (table, column) in columns.decode((String, String).self) {
            catalog.tables.insert(table)
            catalog.columns[table, default: []].insert(column)
        }
        let indexes = try await client.query(
            """
            SELECT c.relname::text, i.relname::text,
                   array(SELECT a.attname::text FROM unnest(x.indkey) k JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k)
            FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND x.indisunique
            """,
            logger: testLogger
        )
        for try await (table, index, columns) in indexes.decode((String, String, [String]).self) {
            catalog.uniqueIndexes[table, default: []].append((index, columns))
        }
        let keys = try await client.query(
            """
            SELECT k.conname::text, c.relname::text,
                   array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, i) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i),
                   r.relname::text,
                   array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, i) JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i)
            FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND k.contype = 'f'
            """,
            logger: testLogger
        )
        for try await (name, table, columns, referenced, referencedColumns) in keys.decode((String, String, [String], String, [String]).self) {
            catalog.foreignKeys.append((name, table, columns, referenced, referencedColumns))
        }
        return catalog
    }

    /// What the catalog breaks of the rule, one line each; empty when the schema is ready.
    static func violations(_ catalog: Catalog) -> [String] {
        var found: [String] = []
        let familyTables = catalog.tables.subtracting(referenceTables).subtracting(coordinatorTables).subtracting(lookupTables.keys)
        for table in familyTables.sorted() {
            if catalog.columns[table]?.contains("family_id") != true { found.append("\(table) has no family_id") }
            for index in catalog.uniqueIndexes[table] ?? [] where !index.columns.contains("family_id") {
                found.append("\(table)'s unique index \(index.name) (\(index.columns.joined(separator: ", "))) lacks family_id")
            }
        }
        for (table, key) in lookupTables.sorted(by: { $0.key < $1.key }) {
            guard catalog.tables.contains(table) else {
                found.append("lookup table \(table) is missing")
                continue
            }
            if catalog.columns[table]?.contains("family_id") != true { found.append("\(table) has no family_id") }
            for index in catalog.uniqueIndexes[table] ?? [] where !index.columns.contains(key) {
                found.append("\(table)'s unique index \(index.name) lacks its key \(key)")
            }
        }
        for key in catalog.foreignKeys {
            guard familyTables.contains(key.table), familyTables.contains(key.referenced) else {
                found.append("foreign key \(key.name) joins \(key.table) to \(key.referenced): only tables of a family's data may be joined")
                continue
            }
            // family_id must meet family_id: the two rows are then of one family, on one node.
            let paired = zip(key.columns, key.referencedColumns).contains { $0 == "family_id" && $1 == "family_id" }
            if !paired { found.append("foreign key \(key.name) of \(key.table) does not pair family_id with family_id") }
        }
        return found
    }

    @Test func everyTableOfAFamilysDataCarriesFamilyIDInEveryKey() async throws {
        try await withTestDatabase { client, _ in
            let catalog = try await Self.catalog(client)
            #expect(catalog.tables.count > 10, "the catalog was read: \(catalog.tables.sorted())")
            #expect(Self.violations(catalog) == [])
        }
    }

    /// The rule catches what it is meant to catch, on tables made to break it.
    @Test func theRuleFindsABreach() async throws {
        try await withTestDatabase(isolation: .database) { client, _ in
            try await client.query("CREATE TABLE global_names (name text PRIMARY KEY, family_id uuid NOT NULL)", logger: testLogger)
            try await client.query("CREATE TABLE stray (id bigint PRIMARY KEY)", logger: testLogger)
            try await client.query(
                "CREATE TABLE notes (family_id uuid NOT NULL, device_id uuid NOT NULL, other_family uuid NOT NULL, PRIMARY KEY (family_id, device_id), FOREIGN KEY (other_family, device_id) REFERENCES devices (family_id, device_id))",
                logger: testLogger
            )
            let found = Self.violations(try await Self.catalog(client))
            #expect(found.contains("global_names's unique index global_names_pkey (name) lacks family_id"))
            #expect(found.contains("stray has no family_id"))
            #expect(found.contains("stray's unique index stray_pkey (id) lacks family_id"))
            #expect(found.contains { $0.hasPrefix("foreign key notes_other_family_device_id_fkey of notes does not pair family_id") })
            #expect(found.count == 4, "\(found)")
        }
    }

    /// deploy/citus.sql distributes each table of a family's data by family_id, co-located with
    /// `families`; each lookup table by its key; the reference tables as such; nothing else.
    @Test func citusScriptPlacesEveryTable() async throws {
        let script = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("deploy/citus.sql"), encoding: .utf8)
        var distributed: [String: (column: String, colocation: String?)] = [:]
        var reference: Set<String> = []
        let call = #/create_(distributed|reference)_table\('([a-z_]+)'(?:,\s*'([a-z_]+)')?(?:,\s*colocate_with\s*=>\s*'([a-z_]+)')?\)/#
        for match in script.matches(of: call) {
            if match.output.1 == "reference" {
                reference.insert(String(match.output.2))
            } else {
                distributed[String(match.output.2)] = (String(match.output.3 ?? ""), match.output.4.map(String.init))
            }
        }
        try await withTestDatabase { client, _ in
            let tables = try await Self.catalog(client).tables
            let familyTables = tables.subtracting(Self.referenceTables).subtracting(Self.coordinatorTables).subtracting(Self.lookupTables.keys)
            #expect(reference == Self.referenceTables)
            #expect(Set(distributed.keys) == tables.subtracting(Self.referenceTables).subtracting(Self.coordinatorTables))
            for table in familyTables.sorted() {
                #expect(distributed[table]?.column == "family_id", "\(table)")
                #expect(distributed[table]?.colocation == (table == "families" ? nil : "families"), "\(table)")
            }
            for (table, key) in Self.lookupTables {
                #expect(distributed[table]?.column == key, "\(table)")
                #expect(distributed[table]?.colocation == "none", "\(table)")
            }
        }
    }
}
