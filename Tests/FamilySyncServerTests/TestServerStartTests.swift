import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// The suite's own machinery: a test server that cannot start fails its test, saying why. Through
/// HummingbirdTesting's live framework it waited for a port for ever, and the run hung until the
/// suite's watchdog ended it (a CI run, 2026-11-27).
@Suite struct TestServerStartTests {
    @Test func aServerThatCannotStartFailsItsTestSayingWhy() async throws {
        let url = try await TestPostgres.shared.embedded().databaseURL(database: "no_such_database_\(UUID().uuidString.prefix(8).lowercased())")
        let error = await #expect(throws: TestFailure.self) {
            try await withTestServer(databaseURL: url) { _ in Issue.record("the server started on a database that does not exist") }
        }
        #expect(error?.description.contains("the test server did not start") == true, "\(String(describing: error))")
    }
}
