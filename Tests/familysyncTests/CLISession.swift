import FamilySyncTestSupport
import Foundation
import Subprocess
import SystemPackage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A person at a terminal: `familysync` client subcommands run as real processes against a real
/// server process, with their own profile file, as docs/walkthrough.md runs them.
struct CLISession {
    let server: ServerProcess
    let directory: String
    /// Whether the server serves HTTPS, with the self-signed pair in `directory`
    /// (`familysync.crt`), which the CLI is told to trust.
    var tls = false

    /// The server's base URL.
    var baseURL: String { "\(tls ? "https" : "http")://127.0.0.1:\(server.port)" }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String

        /// The standard output as JSON (for `--json` runs).
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
                throw TestFailure("not a JSON object: \(stdout)")
            }
            return object
        }

        /// The standard output as a JSON array of objects (`--json` lists).
        func jsonArray() throws -> [[String: Any]] {
            guard let list = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [[String: Any]] else {
                throw TestFailure("not a JSON array of objects: \(stdout)")
            }
            return list
        }
    }

    var environment: [String: String] {
        [
            "FAMILYSYNC_PROFILES": directory + "/profiles.json", "FAMILYSYNC_SERVER": baseURL,
            "FAMILYSYNC_PROFILE": "", "HOME": directory, "XDG_CONFIG_HOME": "",
            "FAMILYSYNC_CA_CERTIFICATE": tls ? directory + "/familysync.crt" : "",
        ]
    }

    /// Runs `familysync <arguments>` to its end, `input` on standard input (else closed).
    func run(_ arguments: [String], environment extra: [String: String] = [:], input: String? = nil) async throws -> Run {
        var updates: [Environment.Key: String?] = [:]
        for (key, value) in environment.merging(extra, uniquingKeysWith: { $1 }) { updates[Environment.Key(stringLiteral: key)] = value }
        let result = if let input {
            // From a file, not a pipe: a command that exits before it reads (a refusal) would
            // leave the pipe's writer failing, which traps in swift-subprocess
            // (swiftlang/swift-subprocess#367) instead of throwing.
            try await Subprocess.run(
                .path(FilePath(TestPaths.familysyncBinary)), arguments: Arguments(arguments),
                environment: .inherit.updating(updates), workingDirectory: FilePath(directory),
                input: .fileDescriptor(try Self.file(holding: input, in: directory), closeAfterSpawningProcess: true),
                output: .string(limit: 1 << 20), error: .string(limit: 1 << 20)
            )
        } else {
            try await Subprocess.run(
                .path(FilePath(TestPaths.familysyncBinary)), arguments: Arguments(arguments),
                environment: .inherit.updating(updates), workingDirectory: FilePath(directory),
                input: .none, output: .string(limit: 1 << 20), error: .string(limit: 1 << 20)
            )
        }
        let status: Int32 = if case .exited(let code) = result.terminationStatus { code } else { -1 }
        return Run(status: status, stdout: result.standardOutput, stderr: result.standardError)
    }

    /// A new file in `directory` holding `text`, open for reading from its start.
    private static func file(holding text: String, in directory: String) throws -> FileDescriptor {
        let path = FilePath(directory + "/stdin-\(UUID().uuidString)")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path.string))
        return try FileDescriptor.open(path, .readOnly)
    }

    /// Runs and expects exit code 0.
    @discardableResult
    /// The walkthrough's family: Mom's iPhone (profile `mom`) and Johnny's iPad (profile
    /// `johnny`), paired and confirmed, as docs/walkthrough.md does it. `ttl`: the invitation's.
    func pairMomAndJohnny(ttl: Int? = nil, timeZone: String = "UTC") async throws {
        _ = try await ok(["family", "create", "--name", "Mom's iPhone", "--platform", "ios", "--time-zone", timeZone, "--profile", "mom"])
        let invitation = try await ok(["pair", "start", "--child-name", "Johnny", "--profile", "mom", "--json"] + (ttl.map { ["--ttl", "\($0)"] } ?? [])).json()
        guard let payload = invitation["qrPayload"] as? String else { throw TestFailure("no qrPayload in \(invitation)") }
        _ = try await ok(["pair", "accept", payload, "--name", "Johnny's iPad", "--platform", "ipados", "--time-zone", timeZone, "--profile", "johnny"])
        _ = try await ok(["pair", "confirm", "--yes", "--profile", "mom"])
    }

    func ok(_ arguments: [String], environment extra: [String: String] = [:], input: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Run {
        let run = try await run(arguments, environment: extra, input: input)
        #expect(run.status == 0, "familysync \(arguments.joined(separator: " ")): \(run.stderr)", sourceLocation: sourceLocation)
        return run
    }

    /// Starts a long-running subcommand (`watch`) with its output in files.
    func start(_ arguments: [String]) async throws -> ServerProcess {
        try await ServerProcess.start(arguments, environment: environment, workingDirectory: directory)
    }
}

/// A server process over a fresh database of the test cluster, and a session against it.
/// `serverArguments` are added to `familysync serve`'s. A database of its own in the Citus pass
/// too: the process runs the periodic jobs (stale devices, retention, tombstones) over every
/// family, on the real clock.
/// With `tls`, the server serves HTTPS with a pair from `familysync tls self-signed`.
func withCLISession<Result>(serverArguments: [String] = [], tls: Bool = false, _ body: (CLISession) async throws -> Result) async throws -> Result {
    try await withTemporaryDirectory { directory in
        let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
        let port = try freePort()
        var serverArguments = serverArguments
        if tls {
            let made = try await ServerProcess.start(["tls", "self-signed", "--host", "localhost", "--host", "127.0.0.1"], workingDirectory: directory)
            guard try await made.waitForExit() == .exited(0) else { throw TestFailure("no self-signed pair: \(made.stderr)") }
            serverArguments += ["--tls-certificate", "familysync.crt", "--tls-key", "familysync.key"]
        }
        // The longest retention, so that the fixed dates of the tests' usage files stay inside it
        // in any year they run.
        let server = try await ServerProcess.start(["serve", "--port", "\(port)", "--usage-retention-days", "36500"] + serverArguments, port: port, environment: ["DATABASE_URL": database.connectionString], workingDirectory: directory)
        defer {
            server.signal(SIGKILL)
        }
        if tls {
            try await server.waitUntilReady(certificate: directory + "/familysync.crt")
        } else {
            try await server.waitUntilReady()
        }
        let result = try await body(CLISession(server: server, directory: directory, tls: tls))
        server.signal(SIGTERM)
        _ = try await server.waitForExit()
        return result
    }
}

/// Waits until `file` contains `text`, up to 20 s.
func waitForOutput(_ process: ServerProcess, containing text: String) async throws {
    try await OpenWaits.during("'\(text)' in a process's output", limit: .seconds(20)) {
        let deadline = ContinuousClock.now + .seconds(20)
        while !process.stdout.contains(text) {
            guard ContinuousClock.now < deadline else { throw TestFailure("no '\(text)' in:\n\(process.stdout)\nstderr:\n\(process.stderr)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
