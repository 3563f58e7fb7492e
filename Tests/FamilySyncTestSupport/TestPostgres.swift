import FamilySyncPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One throwaway PostgreSQL per test process, started on first use with the same embedded component
/// `familysync serve` uses, and stopped when the process exits. Each caller gets a fresh database;
/// in the Citus pass (`TestCitus`), a caller whose isolation is its families gets the pass's one
/// distributed database.
public actor TestPostgres {
    public static let shared = TestPostgres()

    /// Test clusters live here, one folder per test process id.
    static let root = "/tmp/familysync-tests"
    static let templateName = "familysync_template"

    private var cluster: Task<EmbeddedPostgres, any Error>?
    private var counter = 0

    /// A new, empty database; with `migrated`, it already carries every migration of this build.
    public func makeDatabase(migrated: Bool = true, isolation: TestIsolation = .families) async throws -> DatabaseURL {
        if let citus = TestCitus.shared {
            if migrated, isolation == .families { return citus.url }
            return try await citus.makeDatabase(migrated: migrated)
        }
        let embedded = try await start()
        counter += 1
        let name = "test_\(counter)"
        try await embedded.createDatabaseIfMissing(name, template: migrated ? Self.templateName : "template0")
        return embedded.databaseURL(database: name)
    }

    /// Drops a database `makeDatabase` made, once its test is done with it (sessions still open are
    /// ended). A full run makes one a test, about 8 MB each with the WAL that copying the template
    /// writes: kept to the end, they took gigabytes of a machine's disk at once. The Citus pass's
    /// databases are left to the cluster, which its pass removes whole.
    public func dropDatabase(_ url: DatabaseURL) async {
        guard TestCitus.shared == nil, let embedded = try? await start() else { return }
        try? await embedded.dropDatabase(url.database)
    }

    /// Whether `url` is shared with other tests (the Citus pass's database): a check over whole
    /// tables must keep to the test's own families there.
    public nonisolated static func isShared(_ url: DatabaseURL) -> Bool {
        TestCitus.shared?.url == url
    }

    /// The running cluster, for tests of the embedded component itself.
    public func embedded() async throws -> EmbeddedPostgres {
        try await start()
    }

    private func start() async throws -> EmbeddedPostgres {
        if let cluster { return try await cluster.value }
        let task = Task { try await Self.launch() }
        cluster = task
        return try await task.value
    }

    private static func launch() async throws -> EmbeddedPostgres {
        removeClustersOfDeadProcesses()
        let directory = "\(root)/\(getpid())"
        // 32 test servers at once hold up to eight connections each, and the CLI tests' server
        // processes up to 20: at 400, a stressed run's busiest minute met "too many clients".
        let embedded = EmbeddedPostgres(
            configuration: .init(dataDirectory: directory, durability: .throwaway, maxConnections: 600),
            binaries: try PostgresBinaries.find(),
            logger: testLogger
        )
        registerExitHandler(clusterDirectory: embedded.clusterDirectory, dataDirectory: directory)
        try await embedded.start()
        try await embedded.createDatabaseIfMissing(templateName)
        let configuration = embedded.databaseURL(database: templateName).clientConfiguration()
        let connection = try await PostgresConnection.connect(
            configuration: .init(unixSocketPath: configuration.unixSocketPath!, username: configuration.username, password: nil, database: templateName),
            id: 1, logger: testLogger
        )
        do {
            try await Migrator(logger: testLogger).migrate(connection: connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        return embedded
    }

    /// A crashed test run cannot stop its cluster; the next run does.
    private static func removeClustersOfDeadProcesses() {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for entry in entries {
            guard let pid = pid_t(entry), kill(pid, 0) != 0 else { continue }
            let directory = "\(root)/\(entry)"
            EmbeddedPostgres.stopImmediately(clusterDirectory: directory + "/pgdata")
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    private static func registerExitHandler(clusterDirectory: String, dataDirectory: String) {
        exitCleanup.withLock { $0 = (clusterDirectory, dataDirectory) }
        atexit {
            guard let (cluster, data) = exitCleanup.withLock({ $0 }) else { return }
            reportClusterTrouble(log: cluster + "/postgres.log")
            EmbeddedPostgres.stopImmediately(clusterDirectory: cluster)
            // Give the postmaster a moment to go before its files do.
            for _ in 0..<30 where FileManager.default.fileExists(atPath: cluster + "/postmaster.pid") {
                usleep(100_000)
            }
            try? FileManager.default.removeItem(atPath: data)
        }
    }
}

private let exitCleanup = Mutex<(String, String)?>(nil)

/// What the cluster said of its refusals and crashes (a full disk, too many clients, out of shared
/// memory, a fork that failed, a backend crash and the restart of all), printed as the run ends: a
/// test's "the database is unavailable" says nothing of why, and the cluster's log goes with its
/// directory.
private func reportClusterTrouble(log path: String) {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
    let signs = [
        "PANIC", "No space left", "too many clients", "remaining connection slots", "was terminated by signal",
        "terminating any other active server processes", "out of memory", "could not fork", "incomplete startup packet",
        "canceling authentication", "ready to accept connections",
    ]
    // Each line names its SQLSTATE after the pid (`log_line_prefix`): the classes the server
    // answers "the database is unavailable" for, but a session ended by a test's own
    // `pg_terminate_backend` or `DROP DATABASE … WITH (FORCE)` (57P01) or a client gone (08006).
    func refuses(_ line: Substring) -> Bool {
        guard let close = line.range(of: "] ") else { return false }
        let state = line[close.upperBound...].prefix(5)
        return state.hasPrefix("53") || state.hasPrefix("57P0") && state != "57P01" || state.hasPrefix("08") && state != "08006" && state != "08P01"
    }
    var counts: [String: Int] = [:]
    for line in text.split(separator: "\n") where refuses(line) || signs.contains(where: line.contains) {
        // The message without its timestamp and pid, so that repeats count as one.
        let message = line.split(separator: "]", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? String(line)
        counts[String(message.prefix(200)), default: 0] += 1
    }
    // Once is the start; more is a restart after a crash.
    for (message, count) in counts where message.hasSuffix("ready to accept connections") && count == 1 { counts[message] = nil }
    guard !counts.isEmpty else { return }
    var report = "The test cluster's log (\(path)) has refusals or crashes in it:\n"
    for (message, count) in counts.sorted(by: { $0.value > $1.value }) { report += "  \(count)× \(message)\n" }
    FileHandle.standardError.write(Data(report.utf8))
}

/// Quiet unless FAMILYSYNC_TEST_LOG_LEVEL says otherwise (e.g. `debug`); the pool's connect
/// failures are counted whatever it says (`ConnectFailureTally`).
public let testLogger: Logger = {
    let level = ProcessInfo.processInfo.environment["FAMILYSYNC_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
    // The level is each handler's own: setting the logger's would set both.
    return Logger(label: "familysync.tests") { label in
        var printed = StreamLogHandler.standardError(label: label)
        printed.logLevel = level
        return MultiplexLogHandler([printed, ConnectFailureTally.logHandler])
    }
}()
