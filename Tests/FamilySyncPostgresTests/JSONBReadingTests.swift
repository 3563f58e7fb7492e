import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// `JSONB` reads what PostgreSQL sends back as Foundation's decoder reads its text: in one pass
/// where it can, by Foundation's decoder where the one-pass reader leaves it (deep nesting,
/// numbers a `Double` cannot hold).
@Suite struct JSONBReadingTests {
    static let values: [JSONValue] = [
        .object(["a": .array([.number(1), .number(2.5), .number(-0.125), .number(1e-7), .number(1e300), .number(5e-324)]), "b": .null]),
        .object(["ключ": .string("значение"), "emoji": .string("👍🏽"), "quote": .string("x\"y\\z\n\u{1}/"), "t": .bool(true)]),
        .object([:]), .array([]), .string("plain"), .number(0), .null,
        // Past the one-pass reader's 64 levels: Foundation's decoder reads it.
        (0..<70).reduce(JSONValue.number(1)) { inner, _ in .array([inner]) },
    ]

    @Test func storedValuesAreReadAsFoundationReadsTheirText() async throws {
        try await withTestDatabase(migrated: false) { client, _ in
            for value in Self.values {
                let rows = try await client.query("SELECT \(JSONB(value))::jsonb, (\(JSONB(value))::jsonb)::text", logger: testLogger)
                for try await (read, text) in rows.decode((JSONB<JSONValue>, String).self) {
                    let foundation = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
                    #expect(read.value == foundation, "\(text)")
                    #expect(read.value == value, "\(text)")
                }
            }
        }
    }

    /// A record's fields (`RecordFields`), and one stored with a number past a `Double` (by SQL:
    /// no client can write one), which Foundation's decoder refuses as before.
    @Test func fieldsAreReadAndANumberPastADoubleIsRefused() async throws {
        try await withTestDatabase(migrated: false) { client, _ in
            let fields: [String: JSONValue] = ["name": .string("app"), "minutes": .number(45), "days": .array([.string("mon")])]
            let rows = try await client.query("SELECT \(JSONB(fields))::jsonb", logger: testLogger)
            for try await read in rows.decode(RecordFields.self) { #expect(read.value == fields) }
            let huge = try await client.query(#"SELECT '{"n": 1e400}'::jsonb"#, logger: testLogger)
            await #expect(throws: (any Error).self) {
                for try await _ in huge.decode(RecordFields.self) {}
            }
        }
    }
}
