import Foundation
import Logging
import PostgresNIO
import Subprocess
import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The zero-configuration database: a PostgreSQL cluster that FamilySync initialises, starts and
/// stops itself, listening on a Unix socket only (no TCP port).
///
/// Layout of the data directory:
/// - `pgdata/` the cluster (owned by the database user, mode 0700), its Unix socket
///   `.s.PGSQL.5432` and its log `postgres.log`.
///
/// Authentication is `trust` because nothing but the socket listens and the socket is mode 0700:
/// only the database user and root can connect.
public actor EmbeddedPostgres {
    public enum Durability: Sendable {
        /// fsync on: the default for `familysync serve`.
        case durable
        /// fsync off and no sync at initdb: for test clusters that die with their process.
        case throwaway
    }

    public struct Configuration: Sendable {
        public var dataDirectory: String
        public var durability: Durability
        public var maxConnections: Int

        public init(dataDirectory: String, durability: Durability = .durable, maxConnections: Int = 100) {
            self.dataDirectory = FileSystem.absolute(dataDirectory)
            self.durability = durability
            self.maxConnections = maxConnections
        }
    }

    public static let username = "familysync"
    public static let databaseName = "familysync"
    static let port = 5432

    public let configuration: Configuration
    let binaries: PostgresBinaries
    let logger: Logger
    private var isRunning = false

    public init(configuration: Configuration, binaries: PostgresBinaries, logger: Logger) {
        self.configuration = configuration
        self.binaries = binaries
        self.logger = logger
    }

    public nonisolated var clusterDirectory: String { configuration.dataDirectory + "/pgdata" }

    /// The socket lives in the cluster directory unless that path is too long for a Unix socket
    /// (about 100 bytes); then in a short directory under /tmp named by a hash of the cluster path.
    public nonisolated var socketDirectory: String {
        let inCluster = clusterDirectory
        if (inCluster + "/.s.PGSQL.\(Self.port)").utf8.count <= 100 { return inCluster }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in inCluster.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return "/tmp/familysync-" + String(hash, radix: 16)
    }

    /// The URL of a database of this cluster.
    public nonisolated func databaseURL(database: String = EmbeddedPostgres.databaseName) -> DatabaseURL {
        DatabaseURL(
            endpoint: .unixSocket(path: socketDirectory + "/.s.PGSQL.\(Self.port)"),
            username: Self.username, password: nil, database: database, tlsMode: .disable
        )
    }

    /// Initialises the cluster on first use, clears what a killed run left behind, starts it
    /// and makes sure the `familysync` database exists. Returns that database's URL.
    @discardableResult
    public func start() async throws -> DatabaseURL {
        let owner = try DatabaseProcessOwner.resolve()
        try prepareDirectories(owner: owner)
        if !FileSystem.exists(clusterDirectory + "/PG_VERSION") {
            guard FileSystem.isEmptyDirectory(clusterDirectory) else {
                throw EmbeddedPostgresError.notACluster(path: clusterDirectory)
            }
            try await initialiseCluster(owner: owner)
        }
        try await clearLeftovers(owner: owner)
        try await startServer(owner: owner)
        isRunning = true
        try await createDatabaseIfMissing(Self.databaseName)
        return databaseURL()
    }

    /// Starts the cluster again after its postmaster exited while in use: clears what the dead
    /// one left and starts it, which runs PostgreSQL's crash recovery.
    public func restart() async throws {
        let owner = try DatabaseProcessOwner.resolve()
        try await clearLeftovers(owner: owner)
        try await startServer(owner: owner)
        isRunning = true
    }

    /// Whether the postmaster named by the cluster's lock file is alive.
    public nonisolated var isPostmasterAlive: Bool {
        postmasterPID != nil
    }

    /// The process id of the cluster's postmaster while it is alive.
    public nonisolated var postmasterPID: pid_t? {
        PostmasterLock(clusterDirectory: clusterDirectory)?.livePostmasterPID
    }

    /// Stops the cluster (fast shutdown: open sessions are ended, committed work is kept).
    public func stop() async throws {
        guard isRunning else { return }
        let owner = try DatabaseProcessOwner.resolve()
        let postmaster = PostmasterLock(clusterDirectory: clusterDirectory)?.livePostmasterPID
        // It died and was not restarted (the server was stopping): nothing is left to stop.
        guard postmaster != nil else {
            isRunning = false
            return
        }
        try await runAsOwner(owner, binaries.pgCtl, ["stop", "-D", clusterDirectory, "-m", "fast", "-w", "-t", "60"])
        if let postmaster { await PostmasterLock.waitUntilGone(postmaster, of: clusterDirectory) }
        isRunning = false
        logger.info("embedded database stopped", metadata: ["cluster": "\(clusterDirectory)"])
    }

    /// Creates a database in this cluster unless it exists.
    public func createDatabaseIfMissing(_ name: String, template: String? = nil) async throws {
        try await withAdminConnection { connection in
            let rows = try await connection.rows("SELECT 1 FROM pg_database WHERE datname = \(name)", logger: logger)
            guard rows.isEmpty else { return }
            let templateClause = template.map { " TEMPLATE \(Self.quoteIdentifier($0))" } ?? ""
            try await connection.run(PostgresQuery(unsafeSQL: "CREATE DATABASE \(Self.quoteIdentifier(name))\(templateClause)"), logger: logger)
        }
    }

    /// Drops `name` if it exists, ending the sessions still on it.
    public func dropDatabase(_ name: String) async throws {
        try await withAdminConnection { connection in
            try await connection.run(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(Self.quoteIdentifier(name)) WITH (FORCE)"), logger: logger)
        }
    }

    /// Runs `body` on a connection to the cluster's `postgres` database.
    public func withAdminConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let configuration = PostgresConnection.Configuration(
            unixSocketPath: socketDirectory + "/.s.PGSQL.\(Self.port)",
            username: Self.username, password: nil, database: "postgres"
        )
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Ends the postmaster of a cluster at once (SIGQUIT, PostgreSQL's immediate shutdown) without
    /// waiting: for process-exit handlers, which cannot await.
    public nonisolated static func stopImmediately(clusterDirectory: String) {
        guard let pid = PostmasterLock(clusterDirectory: clusterDirectory)?.livePostmasterPID else { return }
        kill(pid, SIGQUIT)
    }

    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: - Steps

    private func prepareDirectories(owner: DatabaseProcessOwner) throws(EmbeddedPostgresError) {
        let dataDirectory = configuration.dataDirectory
        do {
            try FileSystem.makeDirectories(dataDirectory)
            try FileSystem.checkWritable(dataDirectory)
        } catch {
            throw .dataDirectoryNotWritable(path: dataDirectory, reason: error.reason)
        }
        guard owner.canTraverse(to: dataDirectory) else {
            throw .unreachableByPostgresUser(path: dataDirectory)
        }
        for directory in Set([clusterDirectory, socketDirectory]) where !FileSystem.exists(directory) {
            guard mkdir(directory, 0o700) == 0 else {
                throw .dataDirectoryNotWritable(path: directory, reason: FileSystem.lastError().reason)
            }
            if owner.isSwitched { chown(directory, owner.userID, owner.groupID) }
        }
    }

    private func initialiseCluster(owner: DatabaseProcessOwner) async throws {
        logger.info("initialising embedded database", metadata: ["cluster": "\(clusterDirectory)"])
        var arguments = ["-D", clusterDirectory, "-U", Self.username, "--auth=trust", "-E", "UTF8", "--locale=C"]
        if configuration.durability == .throwaway { arguments.append("--no-sync") }
        try await runAsOwner(owner, binaries.initdb, arguments)
    }

    /// A run that was killed leaves `postmaster.pid` behind, and may leave its postmaster running.
    /// A live postmaster of this cluster is stopped (it is restarted below with this run's
    /// settings); a lock file whose process is gone, or is not a postmaster of this cluster
    /// (its pid reused), is removed so that it cannot block the start.
    private func clearLeftovers(owner: DatabaseProcessOwner) async throws {
        guard let lock = PostmasterLock(clusterDirectory: clusterDirectory) else { return }
        if let pid = lock.livePostmasterPID {
            logger.notice("stopping a database left running by an earlier run", metadata: ["pid": "\(pid)"])
            try await runAsOwner(owner, binaries.pgCtl, ["stop", "-D", clusterDirectory, "-m", "fast", "-w", "-t", "60"])
            await PostmasterLock.waitUntilGone(pid, of: clusterDirectory)
        } else {
            logger.notice("removing a stale postmaster.pid left by an earlier run", metadata: ["pid": "\(lock.pid)"])
            unlink(clusterDirectory + "/postmaster.pid")
            unlink(socketDirectory + "/.s.PGSQL.\(Self.port).lock")
        }
    }

    private func startServer(owner: DatabaseProcessOwner) async throws {
        var settings = [
            "-c listen_addresses=''",
            "-k \(Self.quoteShell(socketDirectory))",
            "-p \(Self.port)",
            "-c unix_socket_permissions=0700",
            "-c max_connections=\(configuration.maxConnections)",
        ]
        if configuration.durability == .throwaway {
            // A throwaway cluster's WAL is recycled sooner: the test suite's, which copies its
            // template for every test, otherwise kept a gigabyte of it. Its log names each
            // message's SQLSTATE, by which the suite tells a refusal of its own making from the
            // cluster's (Tests/FamilySyncTestSupport/TestPostgres.swift).
            settings += [
                "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off", "-c max_wal_size=256MB",
                "-c log_line_prefix='%m [%p] %e '",
            ]
        }
        try await runAsOwner(
            owner, binaries.pgCtl,
            ["start", "-D", clusterDirectory, "-w", "-t", "60", "-l", clusterDirectory + "/postgres.log", "-o", settings.joined(separator: " ")],
            // Its own session: a Ctrl-C in the terminal must reach FamilySync, which then stops
            // the database in order, not the database directly.
            newSession: true
        )
        logger.info("embedded database started", metadata: ["socket": "\(socketDirectory)"])
    }

    private static func quoteShell(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private func runAsOwner(_ owner: DatabaseProcessOwner, _ executable: String, _ arguments: [String], newSession: Bool = false) async throws {
        // The user is switched by setpriv(1), not by the spawn: swift-subprocess switches users in a
        // forked child, where glibc's setgroups/setuid can deadlock on the parent's thread list.
        let (program, programArguments) = owner.isSwitched
            ? (try DatabaseProcessOwner.setprivPath(), ["--reuid=\(owner.userID)", "--regid=\(owner.groupID)", "--clear-groups", "--", executable] + arguments)
            : (executable, arguments)
        var options = PlatformOptions()
        options.createSession = newSession
        let command = URL(fileURLWithPath: executable).lastPathComponent + " " + (arguments.first ?? "")
        // "/" as working directory: the database user may not be able to read ours (/root).
        let result = try await Subprocess.run(
            .path(FilePath(program)),
            arguments: Arguments(programArguments),
            workingDirectory: "/",
            platformOptions: options,
            output: .string(limit: 1 << 20),
            error: .string(limit: 1 << 20)
        )
        guard result.terminationStatus.isSuccess else {
            let output = [result.standardOutput, result.standardError].compactMap { $0 }.joined(separator: "\n")
            throw EmbeddedPostgresError.commandFailed(command: command, status: "\(result.terminationStatus)", output: output)
        }
        logger.debug("ran \(command)", metadata: ["output": "\(result.standardOutput ?? "")"])
    }
}
