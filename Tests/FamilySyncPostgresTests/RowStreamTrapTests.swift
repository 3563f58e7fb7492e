import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The database closing a connection in the middle of a large result: PostgresNIO
/// 1.33.2 traps when that meets an async row stream parked for its consumer, and the server's read
/// path (`PostgresConnection.rows`, the future API) must survive it every time. Each side runs in a
/// child process of its own (an exit test), so that the trap ends that process, not the suite.
@Suite struct RowStreamTrapTests {
    /// Tens of megabytes: many read cycles, so the stream is mid-way when the backend goes.
    static let largeResult: PostgresQuery = "SELECT repeat('x', 1000) FROM generate_series(1, 200000)"
    static let rounds = 20

    @Test func theAsyncAPITrapsWhenTheBackendIsKilledWhileItsStreamIsParked() async throws {
        setenv("FAMILYSYNC_TRAP_TEST_ASYNC", try await TestPostgres.shared.makeDatabase(migrated: false).connectionString, 1)
        // A Swift runtime trap is SIGILL on x86_64 and SIGTRAP on arm64; an error thrown instead
        // ends the child with status 0 below and fails this expectation.
        await #expect(processExitsWith: .signal(Self.trapSignal)) {
            try? await Self.killMidStream(urlIn: "FAMILYSYNC_TRAP_TEST_ASYNC", killingAfter: nil) { connection, kill in
                let rows = try await connection.query(Self.largeResult, logger: Logger(label: "trap"))
                var iterator = rows.makeAsyncIterator()
                _ = try await iterator.next()
                // The consumer pauses: the stream fills its buffer and parks, asking for nothing,
                // and the backend goes then. `kill` waits for that: the backend blocked writing to
                // a client that reads nothing. (Killed on a timer instead, a busy machine's stream
                // was still reading when the kill came, in the Citus pass after a second: no trap.)
                try await kill()
                try await Task.sleep(for: .seconds(1))
                while try await iterator.next() != nil {}
            }
            exit(0)
        }
    }

    @Test func theServersReadPathSurvivesTwentyKills() async throws {
        setenv("FAMILYSYNC_TRAP_TEST_FUTURE", try await TestPostgres.shared.makeDatabase(migrated: false).connectionString, 1)
        // Exits 0 only when each of the twenty reads ended in the lost connection's error: a read
        // that finished before its kill tested nothing (status 2), and a trap ends it by a signal.
        // Its standard error is kept: a trap seen once under load (2026-11-28, SIGILL) said
        // nothing of which precondition fired.
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            for _ in 0..<Self.rounds {
                do {
                    try await Self.killMidStream(urlIn: "FAMILYSYNC_TRAP_TEST_FUTURE") { connection, _ in
                        try await connection.rows(Self.largeResult, logger: Logger(label: "trap"))
                    }
                    exit(2)
                } catch {
                    // The socket closing, or PostgreSQL's own word first (57P01, terminated by an administrator).
                    guard case let error as PSQLError = error,
                        [.serverClosedConnection, .clientClosedConnection, .uncleanShutdown].contains(error.code) || error.serverInfo?[.sqlState] == "57P01"
                    else { exit(3) }
                }
            }
            exit(0)
        }
        if let result, result.exitStatus != .exitCode(EXIT_SUCCESS) {
            Issue.record("the reader's standard error: \(String(decoding: result.standardErrorContent, as: UTF8.self).suffix(4000))")
        }
    }

    #if arch(arm64)
    static let trapSignal = SIGTRAP
    #else
    static let trapSignal = SIGILL
    #endif

    /// Runs `read` on a connection of its own to the database named by the environment variable
    /// `urlIn` (a child process inherits the environment; an exit test captures nothing) and has
    /// PostgreSQL end that connection's backend (`pg_terminate_backend`), as a database that dies
    /// does: `killingAfter` the read started, or, when `read` calls the `kill` it is handed, once
    /// the backend waits for the client to read (its stream parked). `read`'s error comes out.
    static func killMidStream(
        urlIn variable: String, killingAfter delay: Duration? = .milliseconds(300),
        _ read: @escaping @Sendable (PostgresConnection, _ kill: @escaping @Sendable () async throws -> Void) async throws -> Void
    ) async throws {
        let configuration = try DatabaseURL(ProcessInfo.processInfo.environment[variable] ?? "").connectionConfiguration()
        let logger = Logger(label: "trap")
        let reader = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        let killer = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
        let outcome: Result<Void, any Error>
        do {
            let pid = try await reader.rows("SELECT pg_backend_pid()", logger: logger).decode(Int32.self)[0]
            let kill: @Sendable () async throws -> Void = { try await killer.run("SELECT pg_terminate_backend(\(pid))", logger: logger) }
            let killWhenParked: @Sendable () async throws -> Void = {
                // Blocked for half a second on end: a client that still reads drains the socket
                // sooner, even on a busy machine.
                var blocked = 0
                for _ in 0..<600 where blocked < 10 {
                    let waiting = try await killer.rows(
                        "SELECT wait_event = 'ClientWrite' FROM pg_stat_activity WHERE pid = \(pid)", logger: logger
                    ).decode(Bool?.self)
                    blocked = waiting.first == true ? blocked + 1 : 0
                    try await Task.sleep(for: .milliseconds(50))
                }
                try await kill()
            }
            let reading = Task { try await read(reader, killWhenParked) }
            if let delay {
                try await Task.sleep(for: delay)
                try await kill()
            }
            outcome = await reading.result
        } catch {
            outcome = .failure(error)
        }
        // PostgresNIO asserts, in debug builds, that every connection is closed before it goes.
        try? await reader.close()
        try? await killer.close()
        try outcome.get()
    }
}
