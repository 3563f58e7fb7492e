import FamilySyncPostgres
import FamilySyncTestSupport
import PostgresNIO
import Testing

@Suite struct MigratorTests {
    static func rows(_ client: PostgresClient, _ query: PostgresQuery) async throws -> [Int] {
        try await client.query(query, logger: testLogger).decode(Int.self).reduce(into: []) { $0.append($1) }
    }

    static func tableExists(_ client: PostgresClient, _ name: String) async throws -> Bool {
        try await client.query("SELECT to_regclass(\(name)) IS NOT NULL", logger: testLogger)
            .decode(Bool.self).first { _ in true } ?? false
    }

    @Test func appliesEveryMigrationOnceAndRecordsIt() async throws {
        try await withTestDatabase(migrated: false) { client, _ in
            let migrator = Migrator(logger: testLogger)
            #expect(try await migrator.appliedVersion(client: client) == nil)
            let applied = try await migrator.migrate(client: client)
            #expect(applied == Migration.all.map(\.version))
            #expect(try await Self.rows(client, "SELECT version FROM schema_migrations ORDER BY version") == applied)
            #expect(try await Self.tableExists(client, "families"))
            #expect(try await migrator.migrate(client: client) == [])
            #expect(try await migrator.appliedVersion(client: client) == Migration.all.last?.version)
        }
    }

    @Test func appliesInOrderOfVersionWhateverTheListOrder() async throws {
        try await withTestDatabase(migrated: false) { client, _ in
            let migrations = [
                Migration(version: 2, name: "second", sql: "ALTER TABLE t ADD COLUMN b int;"),
                Migration(version: 1, name: "first", sql: "CREATE TABLE t (a int);"),
            ]
            let applied = try await Migrator(migrations: migrations, logger: testLogger).migrate(client: client)
            #expect(applied == [1, 2])
        }
    }

    @Test func eachMigrationIsItsOwnTransaction() async throws {
        try await withTestDatabase(migrated: false) { client, _ in
            let migrations = [
                Migration(version: 1, name: "good", sql: "CREATE TABLE kept (a int);"),
                Migration(version: 2, name: "bad", sql: "CREATE TABLE half_done (a int);\nSELECT no_such_column FROM kept;"),
            ]
            let migrator = Migrator(migrations: migrations, logger: testLogger)
            await #expect {
                try await migrator.migrate(client: client)
            } throws: { error in
                guard case .failed(2, "bad", let reason) = error as? MigrationError else { return false }
                return reason.contains("no_such_column")
            }
            let kept = try await Self.tableExists(client, "kept")
            let halfDone = try await Self.tableExists(client, "half_done")
            let recorded = try await Self.rows(client, "SELECT version FROM schema_migrations")
            #expect(kept)
            #expect(!halfDone)
            #expect(recorded == [1])
        }
    }

    @Test func refusesADatabaseNewerThanTheBinary() async throws {
        try await withTestDatabase(migrated: true, isolation: .database) { client, _ in
            let newest = Migration.all.last!.version
            _ = try await client.query("INSERT INTO schema_migrations (version, name, checksum) VALUES (\(newest + 1), 'future', 'x')", logger: testLogger)
            await #expect(throws: MigrationError.databaseNewerThanBinary(databaseVersion: newest + 1, binaryVersion: newest)) {
                try await Migrator(logger: testLogger).migrate(client: client)
            }
        }
    }

    @Test func refusesAMigrationEditedAfterItWasApplied() async throws {
        try await withTestDatabase(migrated: false) { client, _ in
            try await Migrator(migrations: [Migration(version: 1, name: "t", sql: "CREATE TABLE t (a int);")], logger: testLogger).migrate(client: client)
            let edited = Migrator(migrations: [Migration(version: 1, name: "t", sql: "CREATE TABLE t (a bigint);")], logger: testLogger)
            await #expect(throws: MigrationError.changedAfterApplied(version: 1, name: "t")) {
                try await edited.migrate(client: client)
            }
        }
    }

    /// Without the advisory lock both would run `CREATE TABLE slow` and one would fail on the
    /// duplicate; with it, the second waits and finds the work done.
    @Test func concurrentMigratorsApplyEachMigrationOnce() async throws {
        try await withTestDatabase(migrated: false) { client, _ in
            let migrations = [Migration(version: 1, name: "slow", sql: "SELECT pg_sleep(0.3);\nCREATE TABLE slow (a int);")]
            let results = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<2 {
                    group.addTask { try await Migrator(migrations: migrations, logger: testLogger).migrate(client: client) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.sorted { $0.count < $1.count } == [[], [1]])
            #expect(try await Self.rows(client, "SELECT count(*)::int FROM schema_migrations") == [1])
        }
    }

    @Test func readinessNeedsTheDatabaseAtTheBinarysVersion() async throws {
        try await withServingDatabase(migrated: false) { database, client, _ in
            // What is checked is the schema's version, not the deadline: a busy machine may take
            // longer than a probe's two seconds to open the pool's first connection.
            let readiness = DatabaseReadiness(database: database, migrator: Migrator(logger: testLogger), timeout: .seconds(60))
            await #expect(performing: { try await readiness.check() }, throws: isFamilySyncError(.tryAgainLater))
            try await Migrator(logger: testLogger).migrate(client: client)
            #expect(try await readiness.check() == Migration.all.last!.version)
            let ahead = Migrator(migrations: Migration.all + [Migration(version: 999, name: "next", sql: "SELECT 1;")], logger: testLogger)
            await #expect(performing: { try await DatabaseReadiness(database: database, migrator: ahead, timeout: .seconds(60)).check() }, throws: isFamilySyncError(.tryAgainLater))
        }
    }
}
