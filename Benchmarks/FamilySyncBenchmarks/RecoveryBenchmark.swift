import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import Synchronization

/// How fast `familysync serve` (the release binary beside this one, on its embedded database,
/// fsync on) comes back from what production does to it, while a child's uploads keep arriving:
/// (a) restart to ready after the server was killed (SIGKILL) mid-upload, against the same
///     restart after a clean stop (SIGTERM), in the same run;
/// (b) the embedded postmaster killed (SIGKILL) under the running server: time to the server's
///     restart of its database, to ready again and to the first acknowledged upload, every
///     answer's and every exchange's status, the longest wait for one, probes left unanswered,
///     crashes of the server process and how a SIGTERM after the kills ends,
///     against PostgreSQL's own floor: `pg_ctl start` with crash recovery of the same cluster
///     after the same kill, timed by this harness with the server stopped.
enum RecoveryBenchmark {
    static func run(_ arguments: [String]) async throws {
        let rounds = arguments.count > 0 ? Int(arguments[0]) ?? 5 : 5
        var logger = Logger(label: "familysync.bench")
        logger.logLevel = .warning
        let directory = "/tmp/familysync-recovery-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer {
            try? FileManager.default.removeItem(atPath: "/tmp/familysync-recovery-last.log")
            try? FileManager.default.copyItem(atPath: directory + "/serve.log", toPath: "/tmp/familysync-recovery-last.log")
            try? FileManager.default.removeItem(atPath: directory)
        }
        let port = try freeLoopbackPort()
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(timeout: .init(connect: .seconds(2), read: .seconds(30))))
        // Every exchange by status, the SDK's own retries included (it sends a 503 again by itself).
        // An exchange the harness cancelled at a round's end (the uploaders' task) is not the server's.
        let exchanges = RequestRecorder()
        let cancelledExchanges = Atomic<Int>(0)
        let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, httpClient: http) { metrics in
            if metrics.status == nil, Task.isCancelled { cancelledExchanges.add(1, ordering: .relaxed) } else { exchanges.record(metrics) }
        }
        // Readiness probes as an orchestrator sends them: one that has no answer in 3 s (the
        // server's own deadline for the check is 2 s) is counted and the next one sent, so that
        // a probe the server never answers shows as such instead of as the client's 30 s timeout.
        let probeHTTP = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(timeout: .init(connect: .seconds(2), read: .seconds(3))))
        let unansweredProbes = Atomic<Int>(0)
        let probe = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, httpClient: probeHTTP) { metrics in
            exchanges.record(metrics)
            // Not a refused connection (a process that is gone) but a probe the server left waiting.
            if metrics.status == nil, metrics.duration >= .milliseconds(2900) { unansweredProbes.add(1, ordering: .relaxed) }
        }

        var server = try ServeProcess.launch(directory: directory, port: port)
        let coldStart = try await server.waitUntilReady(probe)
        let child = try await pairedChild(anonymous)

        // (a) Restarts: after SIGKILL mid-upload, and after a clean stop.
        var afterKill: [Double] = []
        var afterStop: [Double] = []
        var inFlightAtKill: [Int] = []
        for _ in 0..<rounds {
            let load = UploadLoad(child: child)
            try await Task.sleep(for: .seconds(1))
            inFlightAtKill.append(load.inFlight)
            server.signal(SIGKILL)
            try await server.waitUntilExit()
            await load.stop()
            server = try ServeProcess.launch(directory: directory, port: port)
            afterKill.append(try await server.waitUntilReady(probe))

            server.signal(SIGTERM)
            try await server.waitUntilExit()
            server = try ServeProcess.launch(directory: directory, port: port)
            afterStop.append(try await server.waitUntilReady(probe))
        }

        // (b) The postmaster killed under load.
        var toReady: [Double] = []
        var toRestart: [Double] = []
        var toWrite: [Double] = []
        var longestAnswer: Double = 0
        var statuses: [String: Int] = [:]
        // A server that ends when the database goes away (docs/operations.md, "PostgresNIO 1.33
        // and a database that goes away") is counted and started again, as its supervisor would.
        var serverCrashes = 0
        var crashedAt: [Bool] = []
        func startAgainIfItEnded() async throws {
            guard !server.process.isRunning else { return }
            serverCrashes += 1
            server = try ServeProcess.launch(directory: directory, port: port)
            try await server.waitUntilReady(probe)
        }
        let exchangesBefore = exchanges.snapshot
        let unansweredBefore = unansweredProbes.load(ordering: .relaxed)
        for _ in 0..<rounds {
            let crashesBefore = serverCrashes
            let load = UploadLoad(child: child)
            try await Task.sleep(for: .seconds(1))
            let restartsBefore = Int(try await metric("familysync_embedded_database_restarts_total", port: port, http: http)) ?? 0
            let killedAt = ContinuousClock.now
            try killPostmaster(directory)
            if let (restarted, ready) = try await readyAfterRestart(server, probe: probe, restartsBefore: restartsBefore, port: port, http: http) {
                toRestart.append(seconds(restarted - killedAt) * 1000)
                toReady.append(seconds(ready - killedAt) * 1000)
            } else {
                try await startAgainIfItEnded()
                toReady.append(seconds(ContinuousClock.now - killedAt) * 1000)
            }
            toWrite.append(try await load.firstAcknowledgement(startedAfter: killedAt, whileWaiting: startAgainIfItEnded))
            try await Task.sleep(for: .seconds(1))
            let outcome = await load.stop()
            longestAnswer = max(longestAnswer, outcome.longest)
            if let failure = outcome.firstFailure { print("    an upload without an answer: \(failure)") }
            statuses.merge(outcome.statuses, uniquingKeysWith: +)
            // A crash after it was ready again shows once the process has ended.
            if try await server.waitUntilReadyUnlessItExits(probe) == nil { try await startAgainIfItEnded() }
            crashedAt.append(serverCrashes > crashesBefore)
        }
        let unansweredDuring = unansweredProbes.load(ordering: .relaxed) - unansweredBefore
        let exchangesDuring = exchanges.snapshot
        func during(_ key: String) -> [String: Int] {
            (exchangesDuring[key]?.statuses ?? [:]).merging((exchangesBefore[key]?.statuses ?? [:]).mapValues { -$0 }, uniquingKeysWith: +).filter { $0.value != 0 }
        }
        let restarts = try await metric("familysync_embedded_database_restarts_total", port: port, http: http)
        // A clean stop after the kills: how long it takes and how the process ends.
        let logLength = (try? FileManager.default.attributesOfItem(atPath: directory + "/serve.log")[.size] as? Int) ?? 0
        let stopping = ContinuousClock.now
        server.signal(SIGTERM)
        try await server.waitUntilExit()
        let stopTook = seconds(ContinuousClock.now - stopping) * 1000
        let stopEnded = server.process.terminationReason == .uncaughtSignal
            ? "signal \(server.process.terminationStatus)" : "exit status \(server.process.terminationStatus)"
        let stopLog = (FileManager.default.contents(atPath: directory + "/serve.log") ?? Data()).dropFirst(logLength)
        let fatal = String(decoding: stopLog, as: UTF8.self).split(separator: "\n").first { $0.contains("Fatal error") || $0.contains("crashed") }

        // (b)'s floor: the same kill and PostgreSQL's own start with crash recovery.
        let cluster = EmbeddedPostgres(configuration: .init(dataDirectory: directory + "/data"), binaries: try PostgresBinaries.find(), logger: logger)
        try await cluster.start()
        var floor: [Double] = []
        for _ in 0..<rounds {
            try killPostmaster(directory)
            // Its backends notice and leave; the floor is the start itself, not that wait.
            while FileManager.default.fileExists(atPath: directory + "/data/pgdata/postmaster.pid"), cluster.isPostmasterAlive {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(for: .milliseconds(500))
            let start = ContinuousClock.now
            try await cluster.restart()
            floor.append(seconds(ContinuousClock.now - start) * 1000)
        }
        try await cluster.stop()
        try await http.shutdown()
        try await probeHTTP.shutdown()

        func row(_ values: [Double]) -> String { values.map { String(format: "%.0f", $0) }.joined(separator: ", ") }
        print("cold start (initdb included) to ready: \(String(format: "%.0f", coldStart)) ms")
        print("(a) restart to ready after SIGKILL mid-upload, ms: \(row(afterKill)); median \(String(format: "%.0f", median(afterKill)))")
        print("    uploads in flight at each kill: \(inFlightAtKill.map(String.init).joined(separator: ", "))")
        print("    baseline, restart to ready after SIGTERM, ms: \(row(afterStop)); median \(String(format: "%.0f", median(afterStop)))")
        print(String(format: "    ratio of medians: %.2f", median(afterKill) / median(afterStop)))
        print("(b) postmaster SIGKILL to ready, ms: \(row(toReady)); median \(String(format: "%.0f", median(toReady)))")
        print("    to the database restarted by the server (seen on /metrics), where it did not crash, ms: \(row(toRestart)); median \(String(format: "%.0f", median(toRestart)))")
        print("    the kills after which the server process crashed: \(crashedAt.enumerated().filter(\.element).map { String($0.offset + 1) }.joined(separator: ", ").nonEmpty ?? "none")")
        print("    to the first acknowledged upload sent after the kill, ms: \(row(toWrite)); median \(String(format: "%.0f", median(toWrite)))")
        print("    upload answers: \(statuses.sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }.joined(separator: ", ")); longest wait for an answer \(String(format: "%.0f", longestAnswer)) ms")
        func counts(_ statuses: [String: Int]) -> String { statuses.sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }.joined(separator: ", ") }
        print("    every exchange of POST /v1/usage (the SDK's retries of a 503 included): \(counts(during("POST /v1/usage"))); cancelled by the harness \(cancelledExchanges.load(ordering: .relaxed))")
        print("    readiness probes after the kills: \(counts(during("GET /health/ready"))); left without an answer for 3 s by a running server: \(unansweredDuring)")
        print("    restarts counted on /metrics (since the last server start): \(restarts)")
        print("    server processes that crashed (PostgresNIO, docs/operations.md) and were started again: \(serverCrashes) in \(rounds) kills")
        print("    SIGTERM after the kills: stopped in \(String(format: "%.0f", stopTook)) ms, \(stopEnded)\(fatal.map { "; \($0)" } ?? "")")
        print("    baseline, pg_ctl start with crash recovery alone, ms: \(row(floor)); median \(String(format: "%.0f", median(floor)))")
        print(String(format: "    ratio of medians (to ready / floor): %.2f", median(toReady) / median(floor)))
    }

    /// After a postmaster kill: when the server's `familysync_embedded_database_restarts_total`
    /// passed `restartsBefore` (it saw its database go and started it again), and when a readiness
    /// probe sent after that answered 200; nil once the process has ended. A probe sent just after
    /// the kill can still be answered by a backend that has not yet noticed, and one sent during
    /// the outage waits for the pool, so neither "the first 200" nor "the first 200 after a 503"
    /// marks the recovery.
    static func readyAfterRestart(
        _ server: ServeProcess, probe: FamilySyncClient, restartsBefore: Int, port: Int, http: HTTPClient
    ) async throws -> (restarted: ContinuousClock.Instant, ready: ContinuousClock.Instant)? {
        let deadline = ContinuousClock.now + .seconds(120)
        var restarted: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            guard server.process.isRunning else { return nil }
            if let restarted {
                if (try? await probe.ready()) != nil { return (restarted, ContinuousClock.now) }
            } else if let count = Int((try? await metric("familysync_embedded_database_restarts_total", port: port, http: http)) ?? ""), count > restartsBefore {
                restarted = ContinuousClock.now
                continue
            } else {
                _ = try? await probe.ready()
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchFailure("not ready within two minutes")
    }

    /// A family with one confirmed child; the child's client.
    static func pairedChild(_ anonymous: FamilySyncClient) async throws -> FamilySyncClient {
        let family = try await anonymous.createFamily(.init(name: "Recovery parent", platform: .ios, timeZone: "UTC"))
        let parent = anonymous.authenticated(as: family.credential)
        let invitation = try await parent.createPairing(.init(role: .child, childName: "Recovery"))
        let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Recovery child", platform: .ios, timeZone: "UTC"))
        _ = try await parent.confirmPairing(invitation.pairing.id)
        return anonymous.authenticated(as: accepted.credential)
    }

    static func killPostmaster(_ directory: String) throws {
        let text = try String(contentsOfFile: directory + "/data/pgdata/postmaster.pid", encoding: .utf8)
        guard let pid = text.split(separator: "\n").first.flatMap({ pid_t($0) }) else { throw BenchFailure("no postmaster pid") }
        kill(pid, SIGKILL)
    }

    static func metric(_ name: String, port: Int, http: HTTPClient) async throws -> String {
        let response = try await http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) } ?? "absent"
    }
}

/// `familysync serve` as an operator runs it, its log in the data directory's parent.
struct ServeProcess {
    let process: Process
    let launchedAt: ContinuousClock.Instant

    static func launch(directory: String, port: Int, extraArguments: [String] = []) throws -> ServeProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("familysync")
        process.arguments = ["serve", "--port", "\(port)", "--data-dir", directory + "/data", "--log-level", "warning"] + extraArguments
        // A file, not a pipe: the database the server starts must not hold our end of anything.
        let log = directory + "/serve.log"
        if !FileManager.default.fileExists(atPath: log) { FileManager.default.createFile(atPath: log, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        let launchedAt = ContinuousClock.now
        try process.run()
        return ServeProcess(process: process, launchedAt: launchedAt)
    }

    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    func waitUntilExit() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning {
            guard ContinuousClock.now < deadline else { throw BenchFailure("the server did not exit") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Milliseconds from `since` (the launch by default) to `/health/ready` answering 200.
    @discardableResult
    func waitUntilReady(_ client: FamilySyncClient, since: ContinuousClock.Instant? = nil) async throws -> Double {
        guard let ready = try await waitUntilReadyUnlessItExits(client, since: since) else { throw BenchFailure("the server ended before it was ready") }
        return ready
    }

    /// As `waitUntilReady`, or nil once the process has ended.
    func waitUntilReadyUnlessItExits(_ client: FamilySyncClient, since: ContinuousClock.Instant? = nil) async throws -> Double? {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if (try? await client.ready()) != nil { return seconds(ContinuousClock.now - (since ?? launchedAt)) * 1000 }
            if !process.isRunning { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchFailure("not ready within two minutes")
    }
}

/// Four uploaders sending 50-record batches back to back, each answer counted by status.
final class UploadLoad: Sendable {
    struct Outcome: Sendable {
        var statuses: [String: Int] = [:]
        var longest: Double = 0
        var inFlight = 0
        /// The first failure without an answer, to say why.
        var firstFailure: String?
        /// When each acknowledged upload started and ended.
        var acknowledged: [(started: ContinuousClock.Instant, ended: ContinuousClock.Instant)] = []
    }

    /// Shared with the uploaders' tasks.
    private final class Box: Sendable {
        let outcome = Mutex(Outcome())
    }

    private let box = Box()
    private let uploaders: [Task<Void, Never>]

    init(child: FamilySyncClient) {
        let box = box
        uploaders = (0..<4).map { _ in
            Task {
                while !Task.isCancelled {
                    let now = Date()
                    let records = (0..<50).map { index in
                        UsageRecordBody(
                            recordID: UUID().uuidString, logicalID: "app-\(index % 7)", displayName: "App \(index % 7)", category: "learning",
                            sessionStart: now.addingTimeInterval(-3600 + Double(index) * 10), sessionEnd: now.addingTimeInterval(-3600 + Double(index) * 10 + 5),
                            totalSeconds: 5
                        )
                    }
                    let started = ContinuousClock.now
                    box.outcome.withLock { $0.inFlight += 1 }
                    let status: String
                    do {
                        _ = try await child.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: records))
                        status = "200"
                    } catch let error as FamilySyncError {
                        // The SDK reports a connection that failed as TRY_AGAIN_LATER too; its reason tells.
                        // One still waiting when `stop()` cancels the uploaders is the harness's doing.
                        status = Task.isCancelled ? "cancelled at the round's end" : error.reason.hasPrefix("The server at") ? "no answer" : error.code.rawValue
                        if status == "no answer" { box.outcome.withLock { $0.firstFailure = $0.firstFailure ?? error.reason } }
                    } catch {
                        status = "\(error)"
                    }
                    let ended = ContinuousClock.now
                    box.outcome.withLock { outcome in
                        outcome.inFlight -= 1
                        outcome.statuses[status, default: 0] += 1
                        if status != "no answer", !status.hasPrefix("cancelled") { outcome.longest = max(outcome.longest, seconds(ended - started) * 1000) }
                        if status == "200" { outcome.acknowledged.append((started, ended)) }
                    }
                    if status != "200" { try? await Task.sleep(for: .milliseconds(50)) }
                }
            }
        }
    }

    var inFlight: Int { box.outcome.withLock { $0.inFlight } }

    /// Milliseconds from `instant` to the end of the first acknowledged upload sent after it.
    func firstAcknowledgement(startedAfter instant: ContinuousClock.Instant, whileWaiting: () async throws -> Void = {}) async throws -> Double {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            try await whileWaiting()
            if let first = box.outcome.withLock({ $0.acknowledged.filter { $0.started >= instant }.map(\.ended).min() }) {
                return seconds(first - instant) * 1000
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchFailure("no upload acknowledged within two minutes")
    }

    @discardableResult
    func stop() async -> Outcome {
        for uploader in uploaders { uploader.cancel() }
        for uploader in uploaders { await uploader.value }
        return box.outcome.withLock { $0 }
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}

/// A loopback port nobody listens on now.
func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
    }
    guard bound else { throw BenchFailure("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
}
