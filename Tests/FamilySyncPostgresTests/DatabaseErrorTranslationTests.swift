import FamilySyncCore
import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The store boundary's one translation of database failures (every lease of the pool passes its
/// errors through `DatabaseErrorTranslation`), on errors PostgreSQL really raises.
@Suite struct DatabaseErrorTranslationTests {
    @Test func aUniqueKeyTakenIsTheDomainsConflict() async throws {
        try await withServingDatabase { database, _, _ in
            let error = await #expect(throws: (any Error).self) {
                try await database.inTransaction(logger: testLogger) { connection in
                    try await connection.query("CREATE TEMPORARY TABLE taken (id int PRIMARY KEY)", logger: testLogger)
                    try await connection.query("INSERT INTO taken VALUES (1), (1)", logger: testLogger)
                }
            }
            #expect((error as? FamilySyncError)?.code == .conflict)
        }
    }

    /// A held poll asks whether its read failed because the database is away; the lease has
    /// translated the failure already, and asking again must say the same (it said nil, and a poll
    /// held across a database restart answered 503 instead of holding on).
    @Test func anErrorTranslatedAlreadyIsItself() {
        for error in [FamilySyncError.unavailable("The database is unavailable."), FamilySyncError(.conflict, "taken")] {
            #expect(DatabaseErrorTranslation.translate(error) == error)
        }
    }

    /// What Citus's coordinator raises when the worker holding a family's shard cannot be reached,
    /// raised here by hand on one PostgreSQL: the request answers 503 database unavailable, and
    /// the connection it ran on serves the next transaction (a pool of one, so the same
    /// connection). It went back to the pool aborted before, and the next request failed 25P02.
    @Test func anUnreachableCitusWorkerIsUnavailableAndLeavesTheConnectionWell() async throws {
        try await withTestDatabase { _, url in
            try await withServingPool(url, limit: 1) { pool in
                let database = Database(serving: pool, leaseWait: .seconds(60))
                let error = await #expect(throws: FamilySyncError.self) {
                    try await database.inTransaction(logger: testLogger) { connection in
                        try await connection.query(
                            """
                            DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '08006',
                              MESSAGE = 'connection to the remote node familysync@127.0.0.1:9721 failed with the following error: Connection refused';
                            END $$
                            """,
                            logger: testLogger
                        )
                    }
                }
                #expect(error == TryAgainReason.databaseUnavailable.error)
                let rows = try await database.inTransaction(logger: testLogger) { connection in
                    try await connection.rows("SELECT 1", logger: testLogger).count
                }
                #expect(rows == 1)
            }
        }
    }

    /// The worker lost in the middle of a transaction, as Citus's coordinator relays it (XX000,
    /// told by its message), is unavailable too; another XX000 stays a bug of ours.
    @Test func aCitusWorkerLostMidTransactionIsUnavailable() async throws {
        try await withServingDatabase { database, _, _ in
            for (message, unavailable) in [
                ("failure on connection marked as essential: 127.0.0.1:9721", true),
                ("terminating connection due to administrator command", true),
                ("could not find the shard", false),
            ] {
                let error = await #expect(throws: (any Error).self) {
                    try await database.inTransaction(logger: testLogger) { connection in
                        try await connection.query("DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = '\(unescaped: message)'; END $$", logger: testLogger)
                    }
                }
                #expect((error as? FamilySyncError == TryAgainReason.databaseUnavailable.error) == unavailable, "\(message)")
            }
        }
    }

    @Test func aStatementThatIsWrongIsNoneOfTheClientsBusiness() async throws {
        try await withServingDatabase { database, _, _ in
            let error = await #expect(throws: (any Error).self) {
                try await database.rows("SELECT no_such_column FROM families", logger: testLogger)
            }
            #expect(error != nil && !(error is FamilySyncError), "a bug of ours stays itself, for the HTTP layer to answer 500 and log")
        }
    }
}
