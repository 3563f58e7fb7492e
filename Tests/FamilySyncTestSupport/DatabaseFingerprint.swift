import Logging
import PostgresNIO

/// A digest of every row of the family tables: equal before and after a request that must change nothing.
public func databaseFingerprint(_ client: PostgresClient) async throws -> [String: String] {
    var digests: [String: String] = [:]
    let tables = try await client.query(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename", logger: testLogger
    ).decode(String.self).reduce(into: [String]()) { $0.append($1) }
    for table in tables {
        let digest = try await client.query(
            PostgresQuery(unsafeSQL: "SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM \"\(table)\" t"),
            logger: testLogger
        ).decode(String.self).first { _ in true }
        digests[table] = digest
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
