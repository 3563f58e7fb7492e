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
        try await withTestDatabase { client, _ in
            let error = await #expect(throws: (any Error).self) {
                try await Database.underTest(client).inTransaction(logger: testLogger) { connection in
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

    @Test func aStatementThatIsWrongIsNoneOfTheClientsBusiness() async throws {
        try await withTestDatabase { client, _ in
            let error = await #expect(throws: (any Error).self) {
                try await Database.underTest(client).rows("SELECT no_such_column FROM families", logger: testLogger)
            }
            #expect(error != nil && !(error is FamilySyncError), "a bug of ours stays itself, for the HTTP layer to answer 500 and log")
        }
    }
}
