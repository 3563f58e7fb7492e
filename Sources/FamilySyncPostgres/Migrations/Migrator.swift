import Logging
import PostgresNIO

/// Applies `schema/`'s migrations in order, each in its own transaction, recorded in `schema_migrations`.
///
/// A session advisory lock serialises migrators: two servers starting at once against one database
/// take turns, and the second finds the work done. A database that carries a migration newer than
/// this binary's is refused, and so is one whose applied migration was edited since.
public struct Migrator: Sendable {
    /// `hashtext('familysync.migrations')` would do as well; a constant is clearer in `pg_locks`.
    static let advisoryLockKey: Int64 = 0x4661_6d53_796e_63  // "FamSync"

    public let migrations: [Migration]
    let logger: Logger

    public init(migrations: [Migration] = Migration.all, logger: Logger) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.logger = logger
    }

    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies what is missing and returns the versions it applied.
    @discardableResult
    public func migrate(connection: PostgresConnection) async throws -> [Int] {
        _ = try await connection.rows("SELECT pg_advisory_lock(\(Self.advisoryLockKey))", logger: logger)
        do {
            let applied = try await migrateHoldingLock(connection)
            _ = try await connection.rows("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))", logger: logger)
            return applied
        } catch {
            // The lock is the session's: release it, or the connection's return to the pool keeps it.
            _ = try? await connection.rows("SELECT pg_advisory_unlock(\(Self.advisoryLockKey))", logger: logger)
            throw error
        }
    }

    /// The newest migration applied to the database, or nil if none is (or the table is missing).
    public func appliedVersion(on connection: PostgresConnection) async throws -> Int? {
        let exists = try await connection.rows("SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger).decode(Bool.self).first ?? false
        guard exists else { return nil }
        return try await connection.rows("SELECT max(version) FROM schema_migrations", logger: logger).decode(Int?.self).first ?? nil
    }

    private func migrateHoldingLock(_ connection: PostgresConnection) async throws -> [Int] {
        // Made only where it is missing (the lock keeps another migrator out meanwhile): on Citus,
        // `CREATE TABLE IF NOT EXISTS` over an existing table wants its owner, and a server whose
        // listener has a role of its own (`--listen-database-url`) migrates as that role.
        let exists = try await connection.rows("SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger).decode(Bool.self).first ?? false
        if !exists {
            _ = try await connection.rows(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version    integer     NOT NULL PRIMARY KEY,
                    name       text        NOT NULL,
                    checksum   text        NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                logger: logger
            )
        }
        var recorded: [Int: (name: String, checksum: String)] = [:]
        let rows = try await connection.rows("SELECT version, name, checksum FROM schema_migrations", logger: logger)
        for (version, name, checksum) in try rows.decode((Int, String, String).self) {
            recorded[version] = (name, checksum)
        }
        if let newest = recorded.keys.max(), newest > latestVersion {
            throw MigrationError.databaseNewerThanBinary(databaseVersion: newest, binaryVersion: latestVersion)
        }
        var applied: [Int] = []
        for migration in migrations {
            let checksum = try await md5(migration.sql, on: connection)
            if let existing = recorded[migration.version] {
                guard existing.checksum == checksum else {
                    throw MigrationError.changedAfterApplied(version: migration.version, name: migration.name)
                }
                continue
            }
            try await apply(migration, checksum: checksum, on: connection)
            applied.append(migration.version)
        }
        return applied
    }

    private func apply(_ migration: Migration, checksum: String, on connection: PostgresConnection) async throws {
        logger.info("applying migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
        do {
            try await connection.withTransaction(logger: logger) { transaction in
                for statement in SQLStatementSplitter.split(migration.sql) {
                    _ = try await transaction.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                _ = try await transaction.query(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES (\(migration.version), \(migration.name), \(checksum))",
                    logger: logger
                )
            }
        } catch let error as PostgresTransactionError {
            let underlying = error.closureError ?? error.beginError ?? error.commitError ?? error
            throw MigrationError.failed(version: migration.version, name: migration.name, reason: DatabaseErrorTranslation.describeForOperator(underlying))
        }
    }

    private func md5(_ text: String, on connection: PostgresConnection) async throws -> String {
        try await connection.rows("SELECT md5(\(text))", logger: logger).decode(String.self).first { _ in true } ?? ""
    }
}
