import Foundation
import Logging
import PostgresNIO

/// A digest of every row of the family tables: equal before and after a request that must change nothing.
/// With `families`, a table that carries `family_id` is read for those families only (the Citus
/// pass, where other tests write to the same database meanwhile); the tables without one are read whole.
public func databaseFingerprint(_ client: PostgresClient, families: Set<UUID>? = nil) async throws -> [String: String] {
    var digests: [String: String] = [:]
    let tables = try await client.query(
        """
        SELECT t.tablename::text, EXISTS (SELECT 1 FROM information_schema.columns c
                                          WHERE c.table_schema = 'public' AND c.table_name = t.tablename AND c.column_name = 'family_id')
        FROM pg_tables t WHERE t.schemaname = 'public' ORDER BY t.tablename
        """,
        logger: testLogger
    ).decode((String, Bool).self).reduce(into: [(String, Bool)]()) { $0.append($1) }
    for (table, byFamily) in tables {
        let digest = "SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM \"\(table)\" t"
        guard let families, byFamily else {
            digests[table] = try await client.query(PostgresQuery(unsafeSQL: digest), logger: testLogger).decode(String.self).first { _ in true }
            continue
        }
        // One family a statement: Citus routes `family_id = $1` to the family's one shard, where
        // `= ANY($1)` would read every shard of the table.
        var perFamily: [String] = []
        for family in families.sorted(by: { $0.uuidString < $1.uuidString }) {
            var binds = PostgresBindings()
            binds.append(family)
            let value = try await client.query(PostgresQuery(unsafeSQL: digest + " WHERE t.family_id = $1", binds: binds), logger: testLogger)
                .decode(String.self).first { _ in true }
            perFamily.append("\(family): \(value ?? "")")
        }
        digests[table] = perFamily.joined(separator: ", ")
    }
    return digests
}

/// Every row of every table as text, for a test that a secret appears nowhere in the database.
public func databaseText(_ client: PostgresClient) async throws -> String {
    var text = ""
    let tables = try await client.query(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename", logger: testLogger
    ).decode(String.self).reduce(into: [String]()) { $0.append($1) }
    for table in tables {
        let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT t::text FROM \"\(table)\" t"), logger: testLogger).decode(String.self)
        for try await row in rows { text += "\(table): \(row)\n" }
    }
    return text
}
