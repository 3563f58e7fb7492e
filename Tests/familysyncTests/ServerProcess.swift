import FamilySyncClient
import FamilySyncCore
import FamilySyncTestSupport
import Foundation
import Subprocess
import Synchronization
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// A `familysync` process started by a test, its output in files, stopped by signals.
final class ServerProcess: Sendable {
    let pid: pid_t
    let port: Int
    let stderrPath: String
    private let exit: Task<TerminationStatus, any Error>
    private let ending: Ending

    private init(pid: pid_t, port: Int, stderrPath: String, exit: Task<TerminationStatus, any Error>, ending: Ending) {
        self.pid = pid
        self.port = port
        self.stderrPath = stderrPath
        self.exit = exit
        self.ending = ending
    }

    /// Set once the process has ended and been reaped. From then on its pid is free for the
    /// system to give to another process (a full run goes round a machine's 32,768 pids), and a
    /// SIGKILL sent to it could end a backend of the shared test cluster, which PostgreSQL answers
    /// by restarting every backend.
    private final class Ending: Sendable {
        private let state = Mutex(false)
        func mark() { state.withLock { $0 = true } }
        var hasEnded: Bool { state.withLock { $0 } }
    }

    /// Runs `familysync <arguments>` (or another `executable`) in `workingDirectory` with
    /// `environment` added to this one's.
    static func start(
        _ arguments: [String], executable: String = TestPaths.familysyncBinary, port: Int = 0, environment: [String: String] = [:],
        workingDirectory: String = "/tmp"
    ) async throws -> ServerProcess {
        let stderrPath = workingDirectory + "/stderr-\(UUID().uuidString.prefix(8)).log"
        let stdoutDescriptor = try FileDescriptor.open(FilePath(stderrPath + ".out"), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let stderrDescriptor = try FileDescriptor.open(FilePath(stderrPath), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        var updates: [Environment.Key: String?] = [:]
        for (key, value) in environment { updates[Environment.Key(stringLiteral: key)] = value }
        // Nothing of the developer's environment may choose the database for these tests.
        for key in ["DATABASE_URL", "FAMILYSYNC_DATA_DIR", "FAMILYSYNC_PORT", "FAMILYSYNC_HOST"] where environment[key] == nil {
            updates[Environment.Key(stringLiteral: key)] = .some(nil)
        }
        // The suite's many servers share one test PostgreSQL: a few held connections each, not 20.
        if environment["FAMILYSYNC_DB_CONNECTIONS"] == nil { updates["FAMILYSYNC_DB_CONNECTIONS"] = "4" }
        let (pids, pidContinuation) = AsyncStream.makeStream(of: pid_t.self)
        let ending = Ending()
        // Open from the start: a failed test's directory, and its log in it, may be gone by the
        // time the process has ended.
        let log = FileHandle(forReadingAtPath: stderrPath)
        let exit = Task {
            defer {
                ending.mark()
                if let log {
                    ConnectFailureTally.record(logText: String(decoding: log.readDataToEndOfFile(), as: UTF8.self))
                    try? log.close()
                }
            }
            let result = try await Subprocess.run(
                .path(FilePath(executable)),
                arguments: Arguments(arguments),
                environment: .inherit.updating(updates),
                workingDirectory: FilePath(workingDirectory),
                input: .none,
                output: .fileDescriptor(stdoutDescriptor, closeAfterSpawningProcess: true),
                error: .fileDescriptor(stderrDescriptor, closeAfterSpawningProcess: true)
            ) { execution in
                pidContinuation.yield(execution.processIdentifier.value)
                pidContinuation.finish()
            }
            return result.terminationStatus
        }
        var iterator = pids.makeAsyncIterator()
        guard let pid = await iterator.next() else {
            _ = try await exit.value
            throw TestFailure("\(executable) did not start")
        }
        return ServerProcess(pid: pid, port: port, stderrPath: stderrPath, exit: exit, ending: ending)
    }

    var client: FamilySyncClient {
        FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!)
    }

    var stderr: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }

    var stdout: String {
        (try? String(contentsOfFile: stderrPath + ".out", encoding: .utf8)) ?? ""
    }

    /// Polls `/health/ready` until it answers 200.
    func waitUntilReady(timeout: Duration = .seconds(60)) async throws {
        try await OpenWaits.during("a server process ready on port \(port)", limit: timeout) {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if (try? await client.ready()) != nil { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw TestFailure("not ready within \(timeout); stderr:\n\(stderr)")
        }
    }

    /// Asks `/health/ready` over HTTPS (curl, trusting `certificate`) until it answers 200.
    func waitUntilReady(certificate: String, timeout: Duration = .seconds(60)) async throws {
        try await OpenWaits.during("a server process ready over HTTPS on port \(port)", limit: timeout) {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                let (_, status) = try await runProgram("/usr/bin/curl", [
                    "-sS", "--max-time", "10", "--cacert", certificate, "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:\(port)/health/ready",
                ])
                if status == "200" { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw TestFailure("not ready over HTTPS within \(timeout); stderr:\n\(stderr)")
        }
    }

    /// Sends `signal` while the process runs; nothing once it has ended (its pid may be another's).
    func signal(_ signal: Int32) {
        guard !ending.hasEnded else { return }
        kill(pid, signal)
    }

    /// The processes this one started and still has.
    var children: [pid_t] {
        guard !ending.hasEnded else { return [] }
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0) }
    }

    /// Waits for the process to end; kills it and fails if it takes longer than `timeout`.
    func waitForExit(timeout: Duration = .seconds(30)) async throws -> TerminationStatus {
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            self.signal(SIGKILL)
        }
        defer { watchdog.cancel() }
        return try await OpenWaits.during("the process on port \(port) to exit", limit: timeout) { try await exit.value }
    }
}

/// Processes whose command line names `path`: what is left of a cluster after its server stopped.
func processes(mentioning path: String) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(pid_t.init).filter { pid in
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\0", with: " ").contains(path)
    }
}
