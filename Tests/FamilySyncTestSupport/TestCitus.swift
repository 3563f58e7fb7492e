import FamilySyncPostgres
import Foundation
import Logging
import PostgresNIO
import Testing

/// How much of a database a test needs to itself.
public enum TestIsolation: Sendable {
    /// Its own families: every test's requests name the families they made. On one PostgreSQL the
    /// test still gets a fresh database; in the Citus pass it shares the pass's one database with
    /// every other test, as families share a production cluster.
    case families
    /// A database of its own: the test runs a job over every family (retention, the stale
    /// detector, the push sender's claim), reads whole tables, or migrates. In the Citus pass this
    /// is a fresh distributed database (a few seconds), so few tests ask for it.
    case database
}

/// The Citus pass of scripts/test: `FAMILYSYNC_TEST_CITUS_URL` names the coordinator's database,
/// migrated and distributed by scripts/citus. Tests ask `TestPostgres` for databases as always;
/// on Citus they share this one, or get a fresh distributed database when they need one to
/// themselves.
public actor TestCitus {
    /// Set for the Citus pass only.
    public static let shared: TestCitus? = ProcessInfo.processInfo.environment["FAMILYSYNC_TEST_CITUS_URL"].flatMap { text in
        guard !text.isEmpty else { return nil }
        do {
            return TestCitus(url: try DatabaseURL(text))
        } catch {
            fatalError("FAMILYSYNC_TEST_CITUS_URL: \(error)")
        }
    }

    /// Whether this run is the Citus pass.
    public static var isActive: Bool { shared != nil }

    /// Session settings under which a statement that Citus would run on more than one shard fails
    /// (`citus.multi_task_query_log_level`): docs/operations.md's rule 2 made a check. A
    /// statement that crosses shards passes on the cluster, only slower, and fails every family's
    /// requests while any worker is down. Nothing outside the Citus pass.
    public static var oneShardOnly: [(String, String)] {
        isActive ? [("citus.multi_task_query_log_level", "error")] : []
    }

    /// The pass's shared database.
    public let url: DatabaseURL
    private var counter = 0
    private var nodes: Task<[(host: String, port: Int)], any Error>?
    /// The two templates a test's database is copied from, made once: with the extension and the
    /// topology only, and migrated and distributed too.
    private var templates: Task<Void, any Error>?

    init(url: DatabaseURL) {
        self.url = url
    }

    /// A fresh database on every node of the cluster, with the extension and the topology; with
    /// `migrated`, also the schema, distributed by deploy/citus.sql (4 shards a table, where the
    /// shared database has the production 32: a test's few families need no more, and each shard
    /// costs a table on a worker). Each node copies its own template (`CREATE DATABASE …
    /// TEMPLATE`): about a second, where making one takes several and cannot run two at once.
    func makeDatabase(migrated: Bool) async throws -> DatabaseURL {
        counter += 1
        let name = "test_\(getpid())_\(counter)"
        let nodes = try await clusterNodes()
        if templates == nil {
            templates = Task { [url] in
                try await Self.makeTemplate(Self.template(migrated: false), migrated: false, nodes: nodes, user: url.username)
                try await Self.makeTemplate(Self.template(migrated: true), migrated: true, nodes: nodes, user: url.username)
            }
        }
        try await templates!.value
        let template = Self.template(migrated: migrated)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for node in nodes {
                group.addTask { [url] in
                    try await Self.withConnection(host: node.host, port: node.port, database: "postgres", user: url.username) { connection in
                        try await connection.run(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE \(template)"), logger: testLogger)
                    }
                }
            }
            try await group.waitForAll()
        }
        var made = url
        made.database = name
        return made
    }

    private static func template(migrated: Bool) -> String {
        "template_\(getpid())_\(migrated ? "migrated" : "bare")"
    }

    /// Makes `name` on every node as an operator makes a database (docs/operations.md), then closes
    /// it to connections, Citus's maintenance daemon's included: a database being copied must have none.
    private static func makeTemplate(_ name: String, migrated: Bool, nodes: [(host: String, port: Int)], user: String) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for node in nodes {
                group.addTask {
                    try await Self.withConnection(host: node.host, port: node.port, database: "postgres", user: user) { connection in
                        try await connection.run(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: testLogger)
                    }
                    try await Self.withConnection(host: node.host, port: node.port, database: name, user: user) { connection in
                        try await connection.run("SET client_min_messages = warning", logger: testLogger)
                        try await connection.run("CREATE EXTENSION citus", logger: testLogger)
                    }
                }
            }
            try await group.waitForAll()
        }
        let coordinator = nodes[0]
        try await Self.withConnection(host: coordinator.host, port: coordinator.port, database: name, user: user) { connection in
            try await connection.run("SET client_min_messages = warning", logger: testLogger)
            try await connection.run("SELECT citus_set_coordinator_host(\(coordinator.host), \(Int32(coordinator.port)))", logger: testLogger)
            for worker in nodes.dropFirst() {
                try await connection.run("SELECT citus_add_node(\(worker.host), \(Int32(worker.port)))", logger: testLogger)
            }
            guard migrated else { return }
            try await Migrator(logger: testLogger).migrate(connection: connection)
            try await connection.run("SET citus.shard_count = 4", logger: testLogger)
            for statement in try Self.distributionStatements() {
                try await connection.run(PostgresQuery(unsafeSQL: statement), logger: testLogger)
            }
        }
        for node in nodes {
            try await Self.withConnection(host: node.host, port: node.port, database: "postgres", user: user) { connection in
                try await connection.run(PostgresQuery(unsafeSQL: "ALTER DATABASE \(name) ALLOW_CONNECTIONS false"), logger: testLogger)
                // Until no session is left (the maintenance daemon may be starting as this runs).
                for _ in 0..<100 {
                    let left = try await connection.rows(
                        "SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity WHERE datname = \(name)", logger: testLogger
                    ).decode(Int.self).first { _ in true } ?? 0
                    if left == 0 { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }

    /// The database on the node that holds `family`'s rows: where its statements run and wait
    /// (a lock wait shows in that node's pg_stat_activity, not the coordinator's). On one
    /// PostgreSQL, `url` itself.
    public static func node(holding family: UUID, in url: DatabaseURL, client: PostgresClient) async throws -> DatabaseURL {
        guard isActive else { return url }
        let rows = try await client.query(
            """
            SELECT nodename, nodeport FROM citus_shards
            WHERE table_name = 'families'::regclass AND shardid = get_shard_id_for_distribution_column('families', \(family))
            """,
            logger: testLogger
        )
        for try await (host, port) in rows.decode((String, Int32).self) {
            var node = url
            node.endpoint = .tcp(host: host, port: Int(port))
            return node
        }
        throw TestFailure("no node holds family \(family)")
    }

    /// The coordinator first, then the workers, as the shared database's metadata lists them.
    private func clusterNodes() async throws -> [(host: String, port: Int)] {
        if let nodes { return try await nodes.value }
        let task = Task { [url] in
            guard case .tcp(let host, let port) = url.endpoint else { throw TestFailure("the Citus pass needs a TCP database URL") }
            return try await Self.withConnection(host: host, port: port, database: url.database, user: url.username) { connection in
                var nodes: [(host: String, port: Int)] = []
                let rows = try await connection.query(
                    "SELECT nodename, nodeport FROM pg_dist_node WHERE noderole = 'primary' ORDER BY groupid", logger: testLogger
                )
                for try await (name, port) in rows.decode((String, Int32).self) { nodes.append((name, Int(port))) }
                guard nodes.count >= 2, nodes[0] == (host, port) || nodes[0].port == port else {
                    throw TestFailure("the Citus pass's database lists no coordinator at \(host):\(port) and workers: \(nodes)")
                }
                return nodes
            }
        }
        nodes = task
        return try await task.value
    }

    /// The `SELECT create_…` statements of deploy/citus.sql, in order: the file an operator runs.
    static func distributionStatements() throws -> [String] {
        let script = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("deploy/citus.sql"), encoding: .utf8)
        return script.split(separator: "\n").map(String.init).filter { $0.hasPrefix("SELECT create_") }
    }

    static func withConnection<Result: Sendable>(
        host: String, port: Int, database: String, user: String, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await PostgresConnection.withConnection(
            .init(host: host, port: port, username: user, password: nil, database: database, tls: .disable), logger: testLogger, body
        )
    }
}

extension Trait where Self == ConditionTrait {
    /// A test that cannot apply in the Citus pass, and why: the run lists it as skipped with the
    /// reason (docs/operations.md lists them all).
    public static func notOnCitus(_ reason: Comment, sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        .disabled(if: TestCitus.isActive, reason, sourceLocation: sourceLocation)
    }
}
