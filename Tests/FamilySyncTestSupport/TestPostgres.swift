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

/// Quiet unless FAMILYSYNC_TEST_LOG_LEVEL says otherwise (e.g. `debug`).
public let testLogger: Logger = {
    var logger = Logger(label: "familysync.tests")
    logger.logLevel = ProcessInfo.processInfo.environment["FAMILYSYNC_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
    return logger
}()
