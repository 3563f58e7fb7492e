@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Each test here runs a cluster of its own in a temporary data directory.
@Suite struct EmbeddedPostgresTests {
    static func make(_ directory: String, durability: EmbeddedPostgres.Durability = .throwaway) throws -> EmbeddedPostgres {
        EmbeddedPostgres(
            configuration: .init(dataDirectory: directory, durability: durability),
            binaries: try PostgresBinaries.find(),
            logger: testLogger
        )
    }

    static func query(_ url: DatabaseURL, _ sql: String) async throws {
        let client = PostgresClient(configuration: url.clientConfiguration(), backgroundLogger: testLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            _ = try await client.query(PostgresQuery(unsafeSQL: sql), logger: testLogger)
        }
    }

    static func postmasterIsRunning(_ embedded: EmbeddedPostgres) -> Bool {
        PostmasterLock(clusterDirectory: embedded.clusterDirectory)?.livePostmasterPID != nil
    }

    @Test func initialisesStartsReusesAndStops() async throws {
        try await withTemporaryDirectory { directory in
            let first = try Self.make(directory + "/data")
            let url = try await first.start()
            #expect(url.endpoint == .unixSocket(path: directory + "/data/pgdata/.s.PGSQL.5432"))
            #expect(Self.postmasterIsRunning(first))
            try await Self.query(url, "CREATE TABLE survives_restart (a int)")
            try await first.stop()
            #expect(!Self.postmasterIsRunning(first))
            #expect(!FileManager.default.fileExists(atPath: first.clusterDirectory + "/postmaster.pid"))

            // The second start reuses the cluster: the table is still there.
            let second = try Self.make(directory + "/data")
            let again = try await second.start()
            try await Self.query(again, "SELECT * FROM survives_restart")
            try await second.stop()
        }
    }

    /// A postmaster killed outright (SIGKILL, as the OOM killer does) is started again by the
    /// supervisor, every time; crash recovery keeps what was committed.
    @Test func theSupervisorRestartsAKilledPostmaster() async throws {
        try await withTemporaryDirectory { directory in
            // Durable, as `serve` runs it: a throwaway cluster's asynchronous commits may die with it.
            let embedded = try Self.make(directory, durability: .durable)
            let url = try await embedded.start()
            let supervisor = Task { try await EmbeddedDatabaseSupervisor(database: embedded, logger: testLogger, checkInterval: .milliseconds(50)).run() }
            defer {
                supervisor.cancel()
                Task { _ = await supervisor.result; try? await embedded.stop() }
            }
            try await Self.query(url, "CREATE TABLE kept (a int PRIMARY KEY)")
            try await Self.query(url, "INSERT INTO kept VALUES (1)")
            for round in 2...3 {
                let killed = try #require(PostmasterLock(clusterDirectory: embedded.clusterDirectory)?.livePostmasterPID)
                kill(killed, SIGKILL)
                try await Self.waitUntil("a new postmaster runs") {
                    PostmasterLock(clusterDirectory: embedded.clusterDirectory)?.livePostmasterPID.map { $0 != killed } ?? false
                }
                try await Self.waitUntil("the database answers") { (try? await Self.query(url, "INSERT INTO kept VALUES (\(round)) ON CONFLICT DO NOTHING")) != nil }
            }
            try await Self.query(url, "DO $$ BEGIN IF (SELECT count(*) FROM kept) <> 3 THEN RAISE 'lost a row'; END IF; END $$")
        }
    }

    /// Waits for `condition`, checking every 50 ms, for at most a minute.
    static func waitUntil(_ what: String, _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw TestFailure("not within a minute: \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func listensOnNoTCPPortAndOnlyItsOwnerMayConnect() async throws {
        try await withTemporaryDirectory { directory in
            let embedded = try Self.make(directory)
            let url = try await embedded.start()
            defer { Task { try? await embedded.stop() } }
            try await Self.query(url, "SELECT 1")
            let settings = try String(contentsOfFile: embedded.clusterDirectory + "/postmaster.pid", encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            // Line 6 of postmaster.pid is the TCP listen address: empty when there is none.
            #expect(settings.count > 5 && settings[5].trimmingCharacters(in: .whitespaces).isEmpty)
            var info = stat()
            #expect(stat(embedded.socketDirectory + "/.s.PGSQL.5432", &info) == 0)
            #expect(info.st_mode & 0o077 == 0)
            try await embedded.stop()
        }
    }

    /// A killed run leaves `postmaster.pid`, and here a postmaster still running too.
    @Test func startsAfterARunThatWasKilledWithItsDatabaseStillUp() async throws {
        try await withTemporaryDirectory { directory in
            let killed = try Self.make(directory)
            try await killed.start()
            // A new process (a new actor) finds the old postmaster running, stops it and starts its own.
            let next = try Self.make(directory)
            let url = try await next.start()
            try await Self.query(url, "SELECT 1")
            try await next.stop()
            #expect(!Self.postmasterIsRunning(next))
        }
    }

    @Test func startsOverAStalePostmasterPidWhosePidIsGoneOrReused() async throws {
        try await withTemporaryDirectory { directory in
            let embedded = try Self.make(directory)
            try await embedded.start()
            try await embedded.stop()
            let lock = embedded.clusterDirectory + "/postmaster.pid"
            // pid 1 is alive but is not a postmaster of this cluster; a very large pid is not alive.
            for pid in ["1", "4194000"] {
                try "\(pid)\n\(embedded.clusterDirectory)\n0\n5432\n\(embedded.socketDirectory)\n\n0 0\nready\n"
                    .write(toFile: lock, atomically: true, encoding: .utf8)
                let url = try await embedded.start()
                try await Self.query(url, "SELECT 1")
                try await embedded.stop()
            }
        }
    }

    @Test func reportsMissingBinariesWithTheInstallCommand() throws {
        #expect {
            try PostgresBinaries.find(path: "/nonexistent", debianRoot: "/nonexistent")
        } throws: { error in
            let description = (error as? EmbeddedPostgresError)?.description ?? ""
            return description.contains("apt-get install -y postgresql") && (error as? EmbeddedPostgresError)?.isConfigurationProblem == true
        }
    }

    @Test func findsDebianBinariesWhenPathHasNone() throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let binaries = try PostgresBinaries.find(path: "", debianRoot: "/usr/lib/postgresql")
        #expect(versions.contains { binaries.directory == "/usr/lib/postgresql/\($0)/bin" })
    }

    @Test func refusesADataDirectoryItCannotCreate() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory + "/a-file"
            _ = FileManager.default.createFile(atPath: file, contents: Data())
            let embedded = try Self.make(file + "/data")
            await #expect {
                try await embedded.start()
            } throws: { error in
                guard case .dataDirectoryNotWritable(let path, let reason)? = error as? EmbeddedPostgresError else { return false }
                return path == file + "/data" && reason == "Not a directory"
            }
        }
    }

    @Test func refusesADirectoryThatHoldsSomethingElse() async throws {
        try await withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory + "/pgdata", withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: directory + "/pgdata/notes.txt", contents: Data("mine".utf8))
            let embedded = try Self.make(directory)
            await #expect(throws: EmbeddedPostgresError.notACluster(path: directory + "/pgdata")) {
                try await embedded.start()
            }
        }
    }

    /// As root the cluster belongs to the `postgres` user, who must be able to walk to it.
    @Test(.enabled(if: geteuid() == 0, "only root hands the database to the postgres user"))
    func refusesADataDirectoryThePostgresUserCannotReach() async throws {
        try await withTemporaryDirectory { directory in
            chmod(directory, 0o700)
            let embedded = try Self.make(directory + "/data")
            await #expect(throws: EmbeddedPostgresError.unreachableByPostgresUser(path: directory + "/data")) {
                try await embedded.start()
            }
        }
    }

    @Test func usesAShortSocketDirectoryWhenTheDataPathIsLong() throws {
        let long = "/tmp/" + String(repeating: "d", count: 120)
        let embedded = try Self.make(long)
        #expect(embedded.socketDirectory.hasPrefix("/tmp/familysync-"))
        #expect((embedded.socketDirectory + "/.s.PGSQL.5432").utf8.count <= 100)
        #expect(try Self.make("/tmp/short").socketDirectory == "/tmp/short/pgdata")
    }
}
