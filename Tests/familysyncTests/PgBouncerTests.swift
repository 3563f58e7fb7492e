import FamilySyncClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Subprocess
import SystemPackage
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ReliabilitySuites {
    /// The pool through Debian's PgBouncer (1.18) in transaction mode, the listener direct
    /// (`--listen-database-url`), the hot reads unprepared (`--prepared-statements off`): what
    /// docs/operations.md tells an operator to run behind such a pooler.
    @Suite(.notOnCitus("PgBouncer is set up on the embedded PostgreSQL's socket"))
    struct PgBouncerTests {
        /// PgBouncer on a free loopback port in front of the test cluster, until `body` returns; `body`
        /// gets `database` as reached through it.
        static func withPgBouncer<Result>(database: DatabaseURL, in directory: String, _ body: (DatabaseURL) async throws -> Result) async throws -> Result {
            let setup = try PgBouncerSetup(database: database, poolSize: 4, maxClients: 100, in: directory + "/pgbouncer")
            // Not Foundation's `Process`: its `waitUntilExit` hung in these tests, the child left unreaped.
            let process = try await ServerProcess.start(setup.arguments, executable: setup.executable, workingDirectory: directory + "/pgbouncer")
            defer {
                // Throwaway: no shutdown to wait for (PgBouncer's own waits for its clients).
                process.signal(SIGKILL)
            }
            try await setup.waitUntilListening()
            return try await body(setup.pooled)
        }

        @Test func aServerBehindPgBouncerInTransactionModeSyncsAndWakes() async throws {
            try await withTemporaryDirectory { directory in
                chmod(directory, 0o755)
                let database = try await TestPostgres.shared.makeDatabase()
                try await Self.withPgBouncer(database: database, in: directory) { pooled in
                    let port = try freePort()
                    let server = try await ServerProcess.start(
                        ["serve", "--port", "\(port)", "--db-connections", "8", "--prepared-statements", "off", "--listen-database-url", database.connectionString],
                        port: port, environment: ["DATABASE_URL": pooled.connectionString], workingDirectory: directory
                    )
                    defer { server.signal(SIGKILL) }
                    try await server.waitUntilReady()

                    let family = try await PairedFamily.create(on: server.client)
                    let child = family.children[0]
                    var token = try await child.client.databaseChanges(since: nil).changeToken
                    var zoneToken = try await child.client.zoneChanges(child.zone, since: nil).changeToken
                    // Round after round: each pooled connection's reads land on whichever server
                    // connection PgBouncer picks, which a prepared statement would not survive.
                    for round in 0..<20 {
                        let since = token
                        let poll = Task { try await child.client.poll(since: since, timeout: 60) }
                        try await server.waitForMetric("familysync_polls_active", atLeast: 1)
                        _ = try await family.parent.modify(child.zone, .appConfiguration("app-\(round)"))
                        let answer = try await poll.value
                        #expect(answer.changed && answer.zones == [child.zone], "round \(round)")
                        token = answer.changeToken
                        let pages = try await child.client.changes(inZones: [.init(zoneName: child.zone, since: zoneToken), .init(zoneName: "family")])
                        let page = try pages[0].outcome.get()
                        #expect(page.records.map(\.recordName) == ["app-\(round)"], "round \(round)")
                        zoneToken = page.changeToken
                        #expect(try await child.client.zoneChanges(child.zone, since: zoneToken).records.isEmpty)
                    }
                    #expect(!server.stderr.contains("prepared statement"), "\(server.stderr)")
                }
            }
        }
    }
}
