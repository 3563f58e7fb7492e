import FamilySyncApp
import FamilySyncCore
import FamilySyncServer
import FamilySyncTestSupport
import Logging
import Synchronization
import Testing

/// What the server needs from the database at start is tried again while the database is away,
/// and only then (`StartupRetry`).
@Suite struct StartupRetryTests {
    @Test func aDatabaseAwayIsTriedAgainUntilItAnswers() async throws {
        let calls = Atomic<Int>(0)
        let value = try await StartupRetry.run("test", logger: testLogger) {
            guard calls.add(1, ordering: .relaxed).newValue >= 3 else { throw TryAgainReason.databaseUnavailable.error }
            return 7
        }
        #expect(value == 7)
        #expect(calls.load(ordering: .relaxed) == 3)
    }

    @Test func anotherFailureEndsTheStartAtOnce() async throws {
        let calls = Atomic<Int>(0)
        let error = await #expect(throws: FamilySyncError.self) {
            try await StartupRetry.run("test", logger: testLogger) {
                calls.add(1, ordering: .relaxed)
                throw FamilySyncError.badRequest("not the database being away")
            }
        }
        #expect(error?.code == .badRequest)
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test func aDatabaseAwayPastTheLimitEndsTheStart() async throws {
        let calls = Atomic<Int>(0)
        let error = await #expect(throws: FamilySyncError.self) {
            try await StartupRetry.run("test", limit: .milliseconds(500), logger: testLogger) {
                calls.add(1, ordering: .relaxed)
                throw TryAgainReason.databaseUnavailable.error
            }
        }
        #expect(error?.code == .tryAgainLater)
        #expect(calls.load(ordering: .relaxed) >= 2)
    }
}
