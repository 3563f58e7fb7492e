import FamilySyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The README's HTTPS steps with the binary: a self-signed pair from `familysync tls
/// self-signed`, `serve` with it, and Debian's curl and h2load as the clients.
@Suite struct ServeHTTPSTests {
    static func curl(_ arguments: String...) async throws -> String {
        try await runProgram("/usr/bin/curl", ["-sS", "--max-time", "30"] + arguments).output
    }

    @Test func servesHTTPSAndHTTP2WithASelfSignedPair() async throws {
        try await withTemporaryDirectory { directory in
            let made = try await ServerProcess.start(["tls", "self-signed", "--host", "localhost", "--host", "127.0.0.1"], workingDirectory: directory)
            #expect(try await made.waitForExit() == .exited(0), "\(made.stderr)")
            #expect(made.stdout.contains("wrote familysync.crt and familysync.key"))
            var status = stat()
            stat(directory + "/familysync.key", &status)
            #expect(status.st_mode & 0o777 == 0o600)
            let again = try await ServerProcess.start(["tls", "self-signed", "--host", "localhost"], workingDirectory: directory)
            #expect(try await again.waitForExit() == .exited(2))
            #expect(again.stderr == "familysync: error: familysync.crt exists already; remove it or name another file\n")

            let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
            let port = try freePort()
            let arguments = ["serve", "--port", "\(port)", "--tls-certificate", "familysync.crt", "--tls-key", "familysync.key"]
            // A key others may read is refused before anything listens.
            chmod(directory + "/familysync.key", 0o644)
            let refused = try await ServerProcess.start(arguments, port: port, environment: ["DATABASE_URL": database.connectionString], workingDirectory: directory)
            #expect(try await refused.waitForExit() == .exited(2))
            #expect(refused.stderr == "familysync: error: the TLS key file familysync.key (--tls-key) may be read or changed by other users (mode 644); chmod 600 it\n")
            chmod(directory + "/familysync.key", 0o600)

            let server = try await ServerProcess.start(arguments, port: port, environment: ["DATABASE_URL": database.connectionString], workingDirectory: directory)
            defer { server.signal(SIGKILL) }
            let base = "https://127.0.0.1:\(port)"
            let certificate = directory + "/familysync.crt"
            let deadline = ContinuousClock.now + .seconds(60)
            while try await Self.curl("--cacert", certificate, "-o", "/dev/null", "-w", "%{http_code}", base + "/health/ready") != "200" {
                guard ContinuousClock.now < deadline else { throw TestFailure("not ready over HTTPS: \(server.stderr)") }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(server.stderr.contains("address=https://127.0.0.1:\(port)"))
            #expect(try await Self.curl("--http2", "--cacert", certificate, "-o", "/dev/null", "-w", "%{http_version} %{http_code}", "https://localhost:\(port)/health/live") == "2 200")
            #expect(try await Self.curl("--http1.1", "--cacert", certificate, "-o", "/dev/null", "-w", "%{http_version} %{http_code}", base + "/health/live") == "1.1 200")
            // Without the certificate, curl refuses the server: it is not one the system trusts.
            #expect(try await runProgram("/usr/bin/curl", ["-sS", "--max-time", "30", base + "/health/live"]).status == 60)

            // A pairing's QR code names the server by https when no public URL is set.
            let created = try await Self.curl(
                "--cacert", certificate, "-H", "Content-Type: application/json",
                "-d", #"{"device":{"name":"Mom's iPhone","platform":"ios","timeZone":"UTC"}}"#, base + "/v1/families"
            )
            let credential = try #require((try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])?["credential"] as? String)
            let pairing = try await Self.curl(
                "--cacert", certificate, "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(credential)",
                "-d", #"{"role":"child"}"#, base + "/v1/pairings"
            )
            #expect(pairing.contains("s=https%3A%2F%2F127.0.0.1%3A\(port)&"), "\(pairing)")

            // A container's HEALTHCHECK, from the environment serve reads: HTTPS, the served
            // certificate trusted for 127.0.0.1 (a name it carries or not).
            let health = try await ServerProcess.start(
                ["healthcheck"], environment: ["FAMILYSYNC_PORT": "\(port)", "FAMILYSYNC_TLS_CERTIFICATE": certificate], workingDirectory: directory
            )
            #expect(try await health.waitForExit() == .exited(0), "\(health.stderr)")
            #expect(health.stdout.hasPrefix("ready (schema version"))

            // h2load: many streams on few connections, every one answered.
            let (exit, report) = try await runProgram("/usr/bin/h2load", ["-n", "200", "-c", "2", "-m", "10", base + "/health/live"])
            #expect(exit == 0)
            #expect(report.contains("200 succeeded, 0 failed, 0 errored"), "\(report)")
            #expect(report.contains("Application protocol: h2"), "\(report)")

            server.signal(SIGTERM)
            #expect(try await server.waitForExit() == .exited(0), "\(server.stderr)")
        }
    }
}
