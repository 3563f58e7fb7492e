import FamilySyncClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Subprocess
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `familysync` binary as an operator runs it: real processes, real signals, real PostgreSQL.
@Suite struct ServeCommandTests {
    /// The README's run command with nothing configured: its own database under `.familysync/`.
    @Test func servesOnTheEmbeddedDatabaseAndStopsEverythingOnSIGTERM() async throws {
        try await withTemporaryDirectory { directory in
            let port = try freePort()
            let first = try await ServerProcess.start(["serve", "--port", "\(port)"], port: port, workingDirectory: directory)
            try await first.waitUntilReady()
            let cluster = directory + "/.familysync/pgdata"
            #expect(FileManager.default.fileExists(atPath: cluster + "/PG_VERSION"))
            #expect(!processes(mentioning: cluster).isEmpty)
            first.signal(SIGTERM)
            #expect(try await first.waitForExit() == .exited(0))
            #expect(processes(mentioning: cluster).isEmpty, "a postgres process outlived the server")
            #expect(!FileManager.default.fileExists(atPath: cluster + "/postmaster.pid"))
            #expect(first.stderr.contains("initialising embedded database"))

            // Second start: the cluster is reused, not initialised again; SIGINT stops it as well.
            let second = try await ServerProcess.start(["serve", "--port", "\(port)"], port: port, workingDirectory: directory)
            try await second.waitUntilReady()
            #expect(!second.stderr.contains("initialising"))
            second.signal(SIGINT)
            #expect(try await second.waitForExit() == .exited(0))
            #expect(processes(mentioning: cluster).isEmpty)
        }
    }

    /// Run as root from a checkout the postgres user cannot enter, the default moves to
    /// /var/lib/familysync rather than failing; an explicit --data-dir there is refused.
    @Test(.enabled(if: geteuid() == 0, "only root hands the database to the postgres user"))
    func defaultDataDirectoryFallsBackWhenThePostgresUserCannotReachIt() async throws {
        try await withTemporaryDirectory { directory in
            chmod(directory, 0o700)
            let explicit = try await ServerProcess.start(["serve", "--data-dir", directory + "/data"], workingDirectory: directory)
            #expect(try await explicit.waitForExit() == .exited(2))
            #expect(explicit.stderr.contains("the postgres system user cannot reach \(directory)/data"))

            let fallback = "/var/lib/familysync"
            let existed = FileManager.default.fileExists(atPath: fallback)
            defer { if !existed { try? FileManager.default.removeItem(atPath: fallback) } }
            let port = try freePort()
            let server = try await ServerProcess.start(["serve", "--port", "\(port)"], port: port, workingDirectory: directory)
            try await server.waitUntilReady()
            #expect(server.stderr.contains("using the system one instead"))
            #expect(FileManager.default.fileExists(atPath: fallback + "/pgdata/PG_VERSION"))
            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == .exited(0))
            #expect(processes(mentioning: fallback + "/pgdata").isEmpty)
        }
    }

    /// SIGKILL leaves the database running and its postmaster.pid behind; the next start copes.
    @Test func startsAfterTheServerWasKilled() async throws {
        try await withTemporaryDirectory { directory in
            let port = try freePort()
            let data = directory + "/data"
            let killed = try await ServerProcess.start(["serve", "--port", "\(port)", "--data-dir", data], port: port)
            try await killed.waitUntilReady()
            killed.signal(SIGKILL)
            _ = try await killed.waitForExit()
            #expect(FileManager.default.fileExists(atPath: data + "/pgdata/postmaster.pid"))

            let next = try await ServerProcess.start(["serve", "--port", "\(port)", "--data-dir", data], port: port)
            try await next.waitUntilReady()
            next.signal(SIGTERM)
            #expect(try await next.waitForExit() == .exited(0))
            #expect(processes(mentioning: data + "/pgdata").isEmpty)
        }
    }

    @Test(arguments: [
        (["serve", "--database-url", "mysql://u@h/d"], "malformed database URL: scheme must be postgres"),
        (["serve", "--database-url", "postgres://h/d"], "malformed database URL: a user name is required"),
        (["serve", "--port", "70000"], "port must be a whole number from 1 to 65535, not '70000'"),
        (["serve", "--port", "http"], "port must be a whole number from 1 to 65535, not 'http'"),
        (["serve", "--max-body-bytes=-1"], "max body bytes must be a whole number"),
        (["serve", "--log-format", "xml"], "log format must be text or json, not 'xml'"),
        (["serve", "--log-level", "loud"], "log level must be trace, debug, info"),
        (["serve", "--public-url", "sync.example.com"], "public URL must be an http:// or https:// URL"),
        (["serve", "--unauthenticated-rate-limit", "0"], "unauthenticated rate limit must be a whole number from 1"),
        (["serve", "--idle-timeout", "0"], "idle timeout must be a whole number from 1 to 3600, not '0'"),
        (["serve", "--device-rate-limit", "0"], "device rate limit must be a whole number from 1 to 1000000, not '0'"),
        (["serve", "--device-rate-limit", "lots"], "device rate limit must be a whole number from 1 to 1000000, not 'lots'"),
        (["serve", "--refusal-read-pause=-1"], "refusal read pause must be a whole number from 0 to 10000, not '-1'"),
        (["serve", "--refusal-read-pause", "soon"], "refusal read pause must be a whole number from 0 to 10000, not 'soon'"),
        (["migrate", "--database-url", "postgres://u@h/d?sslmode=maybe"], "sslmode must be disable, prefer, require or verify-full"),
        (["expire-change-tokens", "--database-url", "mysql://u@h/d"], "malformed database URL: scheme must be postgres"),
        (["serve", "--apns-key-id", "ABC123DEFG"], "APNs needs --apns-key-file and --apns-team-id too"),
        (["serve", "--apns-key-file", "/nonexistent/AuthKey.p8", "--apns-key-id", "ABC123DEFG", "--apns-team-id", "DEF123GHIJ"],
         "the APNs key file /nonexistent/AuthKey.p8 is not a readable .p8 (P-256) key"),
        (["serve", "--apns-key-file", "k.p8", "--apns-key-id", "abc", "--apns-team-id", "DEF123GHIJ"], "the APNs key id is 10 capital letters and digits, not 'abc'"),
        (["serve", "--push-webhook-url", "http://127.0.0.1:9/push"], "the push webhook needs a secret of at least 32 characters"),
        (["serve", "--push-webhook-url", "http://127.0.0.1:9/push", "--push-webhook-secret-file", "/nonexistent/secret"],
         "the push webhook secret file /nonexistent/secret cannot be read"),
        (["serve", "--push-webhook-url", "http://127.0.0.1:9/push", "--push-webhook-secret-file", "/proc/sys/kernel/ostype"],
         "the push webhook needs a secret of at least 32 characters"),
        (["serve", "--push-webhook-url", "relay.example.com"], "the push webhook URL must be an http:// or https:// URL"),
        (["serve", "--db-connections", "0"], "database connections must be a whole number from 1 to 1000, not '0'"),
        (["serve", "--push-min-interval", "0"], "push minimum interval must be a whole number from 1 to 3600, not '0'"),
        (["serve", "--database-url", "postgres://u@h/d", "--listen-database-url", "postgres://h/d"], "malformed listen database URL: a user name is required"),
        (["serve", "--listen-database-url", "postgres://u@h/d"], "a listen database URL needs a database URL"),
        (["serve", "--trusted-proxies", "127.0.0.1,10.0.0.0/33"], "trusted proxies: '10.0.0.0/33' has a prefix length that is not 0 to 32"),
        (["serve", "--prepared-statements", "maybe"], "prepared statements must be on or off, not 'maybe'"),
        (["serve", "--trace-ids", "yes"], "trace ids must be on or off, not 'yes'"),
        (["serve", "--operator-token-file", "/nonexistent/operator-token"], "the operator token file /nonexistent/operator-token cannot be read"),
        (["serve", "--operator-token-file", "/proc/sys/kernel/ostype"], "the operator token must be at least 32 visible characters"),
        (["serve", "--otlp-endpoint", "collector:4318"], "the OTLP endpoint must be an http:// or https:// URL without a query, not 'collector:4318'"),
        (["serve", "--otlp-endpoint", "http://127.0.0.1:4318", "--trace-sample-ratio", "1.5"], "the trace sample ratio must be from 0 to 1, not '1.5'"),
        (["serve", "--otlp-endpoint", "http://127.0.0.1:4318", "--trace-sample-ratio", "half"], "the trace sample ratio must be a number from 0 to 1, not 'half'"),
        (["serve", "--trusted-proxies", "proxy.internal"], "trusted proxies: 'proxy.internal' is not an IP address or CIDR range"),
        (["serve", "--tls-certificate", "server.crt"], "--tls-certificate needs --tls-key too"),
        (["serve", "--tls-key", "server.key"], "--tls-key needs --tls-certificate too"),
        (["serve", "--tls-certificate", "/nonexistent/server.crt", "--tls-key", "/nonexistent/server.key"],
         "the TLS certificate file /nonexistent/server.crt (--tls-certificate) does not exist"),
        (["serve", "--tls-certificate", "/tmp", "--tls-key", "/tmp"], "the TLS certificate file /tmp (--tls-certificate) is a directory"),
        (["serve", "--tls-certificate", "/proc/sys/kernel/ostype", "--tls-key", "/proc/sys/kernel/ostype"],
         "the TLS certificate file /proc/sys/kernel/ostype (--tls-certificate) holds no PEM certificate"),
        (["serve", "--pin-in-pairing", "maybe"], "pin in pairing must be on or off, not 'maybe'"),
        (["serve", "--pin-in-pairing", "on"], "--pin-in-pairing needs --tls-certificate and --tls-key"),
        (["serve", "--tls-next-certificate", "next.crt"], "--tls-next-certificate needs --pin-in-pairing on"),
        (["tls", "self-signed"], "name at least one host (--host)"),
        (["tls", "self-signed", "--host", "localhost", "--days", "400"], "days must be a whole number from 1 to 397, not '400'"),
        (["tls", "self-signed", "--host", "not a host"], "'not a host' is not a host name or an IP address"),
    ])
    func badConfigurationExits2WithOneLine(_ arguments: [String], _ reason: String) async throws {
        let process = try await ServerProcess.start(arguments)
        #expect(try await process.waitForExit() == .exited(2))
        let lines = process.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("familysync: error: ") == true)
        #expect(process.stderr.contains(reason), "stderr: \(process.stderr)")
    }

    /// Tracing to a collector that is not there: the spans are dropped (a warning in the log),
    /// and the server goes on serving.
    @Test func aCollectorThatIsAwayCostsNoRequest() async throws {
        let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
        let port = try freePort(), collector = try freePort()
        let server = try await ServerProcess.start(
            ["serve", "--port", "\(port)", "--otlp-endpoint", "http://127.0.0.1:\(collector)"], port: port,
            environment: ["DATABASE_URL": database.connectionString]
        )
        defer { server.signal(SIGKILL) }
        try await server.waitUntilReady()
        // The exporter tries its first batch again and again (backing off) while requests are answered.
        for _ in 0..<6 {
            _ = try await server.client.ready()
            try await Task.sleep(for: .milliseconds(500))
        }
        _ = try await server.client.ready()
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == .exited(0), "\(server.stderr)")
    }

    /// `familysync migrate` applies what is missing once, then finds nothing to do.
    @Test func migrateAppliesThenFindsTheSchemaUpToDate() async throws {
        let database = try await TestPostgres.shared.makeDatabase(migrated: false)
        let latest = Migration.all.map(\.version).max() ?? 0
        let first = try await ServerProcess.start(["migrate", "--database-url", database.connectionString])
        #expect(try await first.waitForExit() == .exited(0), "\(first.stderr)")
        #expect(first.stdout.hasPrefix("applied 1, 2, ") && first.stdout.contains("schema is at version \(latest)"), "\(first.stdout)")
        let second = try await ServerProcess.start(["migrate", "--database-url", database.connectionString])
        #expect(try await second.waitForExit() == .exited(0))
        #expect(second.stdout == "schema is up to date at version \(latest)\n", "\(second.stdout)")
    }

    @Test func badConfigurationFromTheEnvironmentExits2() async throws {
        let process = try await ServerProcess.start(["serve"], environment: ["FAMILYSYNC_PORT": "0x50", "DATABASE_URL": "postgres://u@h/d"])
        #expect(try await process.waitForExit() == .exited(2))
        #expect(process.stderr.contains("port must be a whole number from 1 to 65535, not '0x50'"))
    }

    @Test(arguments: [
        (["FAMILYSYNC_TLS_CERTIFICATE": "server.crt"], "--tls-certificate needs --tls-key too"),
        (["FAMILYSYNC_TLS_KEY": "server.key"], "--tls-key needs --tls-certificate too"),
        (["FAMILYSYNC_PIN_IN_PAIRING": "on"], "--pin-in-pairing needs --tls-certificate and --tls-key"),
        (["FAMILYSYNC_PIN_IN_PAIRING": "1"], "pin in pairing must be on or off, not '1'"),
        (["FAMILYSYNC_TLS_NEXT_CERTIFICATE": "next.crt"], "--tls-next-certificate needs --pin-in-pairing on"),
    ])
    func badTLSSettingsFromTheEnvironmentExit2(_ environment: [String: String], _ reason: String) async throws {
        let process = try await ServerProcess.start(["serve"], environment: environment.merging(["DATABASE_URL": "postgres://u@h/d"]) { $1 })
        #expect(try await process.waitForExit() == .exited(2))
        #expect(process.stderr.hasPrefix("familysync: error: \(reason)"), "stderr: \(process.stderr)")
        #expect(process.stderr.split(separator: "\n").count == 1)
    }

    /// Pinning's files: a certificate a CA issued is not pinned (devices check it already), and
    /// the next certificate is read and checked at start.
    @Test func badPinningFilesExit2WithOneLine() async throws {
        try await withTemporaryDirectory { directory in
            let made = try await ServerProcess.start(["tls", "self-signed", "--host", "localhost"], workingDirectory: directory)
            #expect(try await made.waitForExit() == .exited(0), "\(made.stderr)")
            // A leaf a CA of its own issued, by openssl.
            for arguments in [
                ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", directory + "/ca.key", "-out", directory + "/ca.crt", "-subj", "/CN=Test CA", "-days", "2"],
                ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", directory + "/leaf.key", "-out", directory + "/leaf.csr", "-subj", "/CN=localhost"],
                ["x509", "-req", "-in", directory + "/leaf.csr", "-CA", directory + "/ca.crt", "-CAkey", directory + "/ca.key", "-CAcreateserial", "-CAserial", directory + "/ca.srl", "-out", directory + "/leaf.crt", "-days", "2"],
            ] {
                let (status, output) = try await runProgram("/usr/bin/openssl", arguments)
                #expect(status == 0, "openssl \(arguments): \(output)")
            }
            chmod(directory + "/leaf.key", 0o600)
            let selfSigned = ["--tls-certificate", "familysync.crt", "--tls-key", "familysync.key", "--pin-in-pairing", "on"]
            for (arguments, reason) in [
                (["--tls-certificate", "leaf.crt", "--tls-key", "leaf.key", "--pin-in-pairing", "on"],
                 "--pin-in-pairing is for a self-signed certificate; devices already check the one in leaf.crt, which a CA issued"),
                (selfSigned + ["--tls-next-certificate", "/nonexistent/next.crt"],
                 "the next TLS certificate file /nonexistent/next.crt (--tls-next-certificate) does not exist"),
                (selfSigned + ["--tls-next-certificate", "leaf.crt"],
                 "the next TLS certificate file leaf.crt (--tls-next-certificate) holds a certificate a CA issued; pinning is for a self-signed one"),
                (selfSigned + ["--tls-next-certificate", "familysync.key"],
                 "the next TLS certificate file familysync.key (--tls-next-certificate) holds no PEM certificate"),
            ] {
                let process = try await ServerProcess.start(["serve"] + arguments, environment: ["DATABASE_URL": "postgres://u@h/d"], workingDirectory: directory)
                #expect(try await process.waitForExit() == .exited(2))
                #expect(process.stderr == "familysync: error: \(reason)\n", "\(arguments)")
            }
        }
    }

    @Test func unknownFlagsExit2WithUsage() async throws {
        let process = try await ServerProcess.start(["serve", "--no-such-flag"])
        #expect(try await process.waitForExit() == .exited(2))
        #expect(process.stderr.contains("Unknown option '--no-such-flag'"))
    }

    @Test func dataDirectoryThatCannotBeWrittenExits2() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory + "/file"
            _ = FileManager.default.createFile(atPath: file, contents: Data())
            let process = try await ServerProcess.start(["serve", "--data-dir", file + "/data"])
            #expect(try await process.waitForExit() == .exited(2))
            #expect(process.stderr == "familysync: error: data directory \(file)/data is not writable: Not a directory\n")
        }
    }

    @Test func portInUseExits2() async throws {
        let holder = try PortHolder()
        defer { holder.close() }
        let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
        let process = try await ServerProcess.start(["serve", "--port", "\(holder.port)"], environment: ["DATABASE_URL": database.connectionString])
        #expect(try await process.waitForExit() == .exited(2))
        #expect(process.stderr.contains("familysync: error: port \(holder.port) on 127.0.0.1 is already in use"), "stderr: \(process.stderr)")
    }

    /// Configuration from the environment, JSON logs, and a body refused on its headers alone.
    @Test func environmentJSONLogsAndEarly413() async throws {
        let port = try freePort()
        let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
        let process = try await ServerProcess.start(
            ["serve"], port: port,
            environment: ["FAMILYSYNC_PORT": "\(port)", "DATABASE_URL": database.connectionString, "FAMILYSYNC_LOG_FORMAT": "json", "FAMILYSYNC_LOG_LEVEL": "debug"]
        )
        try await process.waitUntilReady()
        // Headers that promise 5 MiB, and no body: the answer comes without waiting for it.
        let answer = try await rawExchange(port: port, request: "POST /v1/nowhere HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5242880\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 413"), "answer: \(answer)")
        #expect(answer.contains(#""code":"LIMIT_EXCEEDED""#))
        #expect(answer.lowercased().contains("x-request-id: "))
        process.signal(SIGTERM)
        #expect(try await process.waitForExit() == .exited(0))
        let lines = process.stderr.split(separator: "\n")
        #expect(lines.count > 3)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["message"] is String && object?["level"] is String && object?["timestamp"] is String, "not a JSON log line: \(line)")
        }
        #expect(process.stderr.contains(#""message":"listening""#))
    }
}

/// `--listen-database-url`: the change listener's LISTEN connection goes where it says (behind a
/// transaction pooler the pool cannot carry LISTEN), and a write still wakes a held poll.
@Suite struct ListenDatabaseURLTests {
    @Test func theListenerConnectsWhereItIsToldAndPollsStillWake() async throws {
        try await withTemporaryDirectory { directory in
            let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
            // A role of its own, so the listener's session can be told from the pool's.
            let role = "fs_listener_\(UInt32.random(in: 0...UInt32.max))"
            // As the database's owner (on Citus, the coordinator: it sends roles to the workers).
            // The migrations at start run on the listen URL's connection too: its role may check
            // the (already applied) schema.
            try await PostgresConnection.withConnection(try database.connectionConfiguration(), logger: testLogger) { owner in
                _ = try await owner.query(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN"), logger: testLogger)
                _ = try await owner.query(PostgresQuery(unsafeSQL: "GRANT CREATE ON SCHEMA public TO \(role)"), logger: testLogger)
                _ = try await owner.query(PostgresQuery(unsafeSQL: "GRANT SELECT ON schema_migrations TO \(role)"), logger: testLogger)
            }
            var listen = database
            listen.username = role
            let port = try freePort()
            let server = try await ServerProcess.start(
                ["serve", "--port", "\(port)", "--listen-database-url", listen.connectionString], port: port,
                environment: ["DATABASE_URL": database.connectionString], workingDirectory: directory
            )
            defer { server.signal(SIGKILL) }
            try await server.waitUntilReady()

            let listening = try await PostgresConnection.withConnection(try database.connectionConfiguration(), logger: testLogger) { connection in
                let rows = try await connection.query(
                    "SELECT count(*)::int FROM pg_stat_activity WHERE usename = \(role) AND datname = \(database.database) AND query ILIKE 'LISTEN%'", logger: testLogger
                )
                var count = 0
                for try await (value) in rows.decode(Int.self) { count = value }
                return count
            }
            #expect(listening == 1, "the listener's session, as the listen URL's role")

            let family = try await PairedFamily.create(on: server.client)
            let child = family.children[0]
            let since = try await child.client.databaseChanges(since: nil).changeToken
            let poll = Task { try await child.client.poll(since: since, timeout: 60) }
            try await server.waitForMetric("familysync_polls_active", atLeast: 1)
            _ = try await family.parent.modify(child.zone, .appConfiguration("app-1"))
            let answer = try await poll.value
            #expect(answer.changed)
            #expect(answer.zones == [child.zone])
        }
    }
}
