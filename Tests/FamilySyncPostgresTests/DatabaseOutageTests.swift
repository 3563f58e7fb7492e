@testable import FamilySyncPostgres
import FamilySyncCore
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a request's transaction does when the database dies under it: it fails (`TRY_AGAIN_LATER`),
/// it never hangs, and once the supervisor has restarted the database the next one works.
@Suite struct DatabaseOutageTests {
    /// Eight writers queue on one row's lock, as a family's writers do, so that most of them are
    /// waiting inside a transaction when the postmaster is killed. PostgresNIO's own
    /// `withTransaction` then sent ROLLBACK on the dead connection, which is never answered. Both
    /// pools: the serving one (`LoopBoundPool`) and PostgresNIO's, which the store tests lease from.
    @Test(arguments: [true, false]) func transactionsInFlightWhenThePostmasterDiesFailAndTheNextOnesWork(loopBound: Bool) async throws {
        try await withTemporaryDirectory { directory in
            let embedded = EmbeddedPostgres(configuration: .init(dataDirectory: directory, durability: .durable), binaries: try PostgresBinaries.find(), logger: testLogger)
            let url = try await embedded.start()
            let supervisor = Task { try await EmbeddedDatabaseSupervisor(database: embedded, logger: testLogger, checkInterval: .milliseconds(50)).run() }
            let client = PostgresClient(configuration: url.clientConfiguration(), backgroundLogger: testLogger)
            let pool = Task { await client.run() }
            let loopBoundPool = LoopBoundPool(configuration: try url.connectionConfiguration(), limit: 8, logger: testLogger)
            let database = loopBound ? Database(serving: .loopBound(loopBoundPool)) : Database(client: client)
            defer {
                supervisor.cancel()
                pool.cancel()
                EmbeddedPostgres.stopImmediately(clusterDirectory: embedded.clusterDirectory)
            }
            try await Database.underTest(client).rows("CREATE TABLE counter (id int PRIMARY KEY, n int NOT NULL)", logger: testLogger)
            try await Database.underTest(client).rows("INSERT INTO counter VALUES (1, 0)", logger: testLogger)

            let killed = Killed()
            let progress = WriterProgress(count: 8)
            let writers = (0..<8).map { writer in
                Task {
                    var failures = 0, successesAfterKill = 0
                    while successesAfterKill < 3 {
                        progress.note(writer, "attempt \(failures + successesAfterKill + 1) (\(failures) failed, \(successesAfterKill) after the kill)")
                        do {
                            try await database.inTransaction(logger: testLogger) { connection in
                                // As the stores send statements (`rows`), which a closed connection refuses.
                                try await connection.run("SELECT n FROM counter WHERE id = 1 FOR UPDATE", logger: testLogger)
                                try await connection.run("SELECT pg_sleep(0.02)", logger: testLogger)
                                try await connection.run("UPDATE counter SET n = n + 1 WHERE id = 1", logger: testLogger)
                            }
                            if killed.value { successesAfterKill += 1 }
                        } catch let error as FamilySyncError where error.code == .tryAgainLater {
                            failures += 1
                            try await Task.sleep(for: .milliseconds(20))
                        }
                    }
                    return failures
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            kill(try #require(PostmasterLock(clusterDirectory: embedded.clusterDirectory)?.livePostmasterPID), SIGKILL)
            killed.set()
            // A hang detector with a wide margin: the restart takes well under a second.
            let failures: Int
            do {
                failures = try await failingIfHung(after: .seconds(30), "writers after the postmaster died") {
                    var total = 0
                    for writer in writers { total += try await writer.value }
                    return total
                }
            } catch {
                // What the pool held at the hang, and each writer's count, to tell which of them stuck.
                Issue.record("pool: \(loopBound ? loopBoundPool.description : "PostgresClient"); writers: \(progress.describe())")
                throw error
            }
            #expect(failures > 0, "no transaction was caught by the kill: the test proved nothing")
        }
    }
}

/// What each writer was doing last, for the message of a hang.
private final class WriterProgress: Sendable {
    private let states: Mutex<[String]>

    init(count: Int) { states = Mutex(Array(repeating: "not started", count: count)) }

    func note(_ writer: Int, _ state: String) { states.withLock { $0[writer] = state } }

    func describe() -> String { states.withLock { $0.enumerated().map { "\($0): \($1)" }.joined(separator: "; ") } }
}

/// Set once, read by the writers.
private final class Killed: Sendable {
    private let flag = Mutex(false)
    var value: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}
