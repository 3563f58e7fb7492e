import AsyncHTTPClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import NIOCore
import NIOHTTP1

/// One family's write burst against its neighbours on the same server (the issue behind
/// `FamilyWriteQueue`): the server in a process of its own with a pool of 8 connections, as in
/// the issue. `quiet` families each write one record and fetch their zone every 100 ms, first
/// alone (the baseline), then while one family's `writers` write one-record modifies into its
/// child's zone back to back. Over the embedded PostgreSQL directly, then through PgBouncer in
/// transaction mode (its pool as large as the server's, the listener direct, prepared statements
/// off, as docs/operations.md says to run behind it). `ignoring`: the bursting family's client
/// ignores `Retry-After` and sends a shed write again at once, as a broken client would.
///
///     familysync-bench neighbours [writers] [seconds] [quiet families] [direct|pgbouncer|both] [ignoring] [refusal-pause=ms]
enum NeighboursBenchmark {
    static let poolConnections = 8
    /// The burst runs this long before the quiet families' window opens (its connections open,
    /// the family's line fills), and ends with it.
    static let warmUp: Duration = .seconds(1)
    static let tick: Duration = .milliseconds(100)
    static let requestTimeout: TimeAmount = .seconds(30)

    static func run(_ arguments: [String]) async throws {
        let numbers = arguments.compactMap { Int($0) }
        let writers = numbers.count > 0 ? numbers[0] : 48
        let duration = numbers.count > 1 ? numbers[1] : 15
        let quietCount = numbers.count > 2 ? numbers[2] : 3
        let which = arguments.first { Int($0) == nil && $0 != "ignoring" && !$0.hasPrefix("refusal-pause=") } ?? "both"
        let ignoring = arguments.contains("ignoring")
        // The server's `refusalReadPause` in ms; its default when not given.
        let refusalPause = arguments.first { $0.hasPrefix("refusal-pause=") }.flatMap { Int($0.dropFirst("refusal-pause=".count)) }
        guard ["direct", "pgbouncer", "both"].contains(which), writers > 0, duration > 0, quietCount > 0 else {
            print("usage: familysync-bench neighbours [writers] [seconds] [quiet families] [direct|pgbouncer|both] [ignoring] [refusal-pause=ms]")
            exit(2)
        }
        print("FamilySync neighbours benchmark: one family with \(writers) writers at once\(ignoring ? " ignoring Retry-After" : ""), "
              + "\(quietCount) quiet families (a write and a fetch every 100 ms), "
              + "\(duration) s a phase, the server in its own process with \(poolConnections) pool connections")
        print("  load average at start: \(loadAverage())")
        let bench = try await SeparateServerBench.start(connections: 8)
        do {
            /// One server process over `databaseURL` for one mode, measured, its log summed up.
            func measureServer(_ title: String, databaseURL: DatabaseURL, listenURL: DatabaseURL? = nil, preparedStatements: Bool = true, log: String) async throws {
                let (server, port) = try BenchServer.launch(
                    databaseURL: databaseURL, connections: poolConnections, listenURL: listenURL, preparedStatements: preparedStatements, log: log,
                    refusalPause: refusalPause
                )
                defer {
                    server.terminate()
                    server.waitUntilExit()
                    summariseLog(log)
                }
                print(title)
                try await measure(port: port, serverPID: server.processIdentifier, writers: writers, duration: duration, quietCount: quietCount, ignoring: ignoring)
            }
            if which != "pgbouncer" {
                try await measureServer("  direct to PostgreSQL:", databaseURL: bench.url, log: bench.directory + "-direct.log")
            }
            if which != "direct" {
                let bouncer = try await BenchPgBouncer.start(database: bench.url, poolSize: poolConnections, in: bench.directory + "-pgbouncer")
                do {
                    try await measureServer(
                        "  through PgBouncer (transaction mode, pool \(poolConnections); listener direct, prepared statements off):",
                        databaseURL: bouncer.pooled, listenURL: bench.url, preparedStatements: false, log: bench.directory + "-pgbouncer.log"
                    )
                } catch {
                    await bouncer.stop()
                    throw error
                }
                await bouncer.stop()
                try? FileManager.default.removeItem(atPath: bouncer.directory)
            }
        } catch {
            print("benchmark failed: \(error)")
        }
        print("  load average at end: \(loadAverage())")
        try await bench.stop()
    }

    // MARK: - The families

    struct Family: Sendable {
        var parent: String
        var child: String
        var zone: String
    }

    static func pairedFamily(_ api: API, name: String) async throws -> Family {
        let family = try await api.send(
            .POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "\(name) parent", platform: .ios, timeZone: "UTC")), as: CreateFamilyResponse.self
        )
        let invitation = try await api.send(
            .POST, "/v1/pairings", credential: family.credential, body: CreatePairingRequest(role: .child, childName: name), as: CreatePairingResponse.self
        )
        let child = try await api.send(
            .POST, "/v1/pairings/accept",
            body: AcceptPairingRequest(qrPayload: invitation.qrPayload, device: .init(name: "\(name) iPad", platform: .ipados, timeZone: "UTC")),
            as: AcceptPairingResponse.self
        )
        _ = try await api.send(.POST, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: family.credential, body: Empty(), as: PairingBody.self)
        return Family(parent: family.credential, child: child.credential, zone: "child-\(child.device.id.lowercased)")
    }

    /// A one-record modify: `forceReplace` of `name`, an `AppConfiguration` whose fields change
    /// with `round`, so every write is a change.
    static func modifyBody(_ name: String, round: Int) throws -> ByteBuffer {
        let fields: [String: JSONValue] = [
            "logicalID": .string(name), "displayName": .string("App \(name)"), "category": .string("learning"),
            "pointsPerMinute": .number(Double(round % 100)), "isEnabled": .bool(true), "blockingEnabled": .bool(round % 2 == 0),
            "bundleIdentifier": .string("com.example.\(name)"),
        ]
        let request = ModifyRecordsRequest(operations: [
            RecordOperation(operationType: .forceReplace, record: RecordInput(recordName: name, recordType: "AppConfiguration", fields: fields))
        ])
        return ByteBuffer(data: try WireCoding.makeEncoder().encode(request))
    }

    // MARK: - One exchange, whatever its answer

    struct Answer {
        var status: Int
        var body: ByteBuffer
        var seconds: Double
        var retryAfter: Int?

        /// Why a 503 was answered, from its body's reason (`TryAgainReason`).
        var shedReason: TryAgainReason? {
            guard status == 503, let response = try? WireCoding.makeDecoder().decode(ErrorResponse.self, from: Data(body.readableBytesView)) else { return nil }
            return TryAgainReason(response.familySyncError)
        }
    }

    /// The answer, or nil when no answer came (a connection error or the timeout).
    static func exchange(_ http: HTTPClient, _ method: HTTPMethod, _ url: String, credential: String, body: ByteBuffer? = nil) async -> Answer? {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(credential)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(body)
        }
        let start = ContinuousClock.now
        do {
            let response = try await http.execute(request, timeout: requestTimeout)
            let bytes = try await response.body.collect(upTo: 16 << 20)
            return Answer(
                status: Int(response.status.code), body: bytes, seconds: seconds(.now - start),
                retryAfter: response.headers.first(name: "Retry-After").flatMap { Int($0) }
            )
        } catch {
            return nil
        }
    }

    // MARK: - The quiet families

    struct QuietFigures {
        var writes: [Double] = []
        var fetches: [Double] = []
        /// Answers by status, and exchanges that got none.
        var statuses: [Int: Int] = [:]
        var noAnswer = 0
        /// Fetches after a successful write that did not carry the record.
        var staleFetches = 0

        var serverErrors: Int { statuses.filter { $0.key >= 500 }.values.reduce(0, +) + noAnswer }
        var non2xx: Int { statuses.filter { !(200..<300).contains($0.key) }.values.reduce(0, +) + noAnswer }

        mutating func add(_ other: QuietFigures) {
            writes += other.writes
            fetches += other.fetches
            statuses.merge(other.statuses, uniquingKeysWith: +)
            noAnswer += other.noAnswer
            staleFetches += other.staleFetches
        }
    }

    /// Every `tick` from `start` until `end`: the parent writes one record into the child's zone,
    /// then the child fetches the zone's changes since its last token. A round that overruns its
    /// tick is followed by the next at once, without catching up on the missed ones.
    static func quiet(_ family: Family, http: HTTPClient, base: String, token: String, from start: ContinuousClock.Instant, until end: ContinuousClock.Instant) async throws -> (QuietFigures, String) {
        var figures = QuietFigures()
        var token = token
        var next = start
        var round = 0
        try await Task.sleep(until: start, clock: .continuous)
        while next < end {
            round += 1
            let body = try modifyBody("quiet-app", round: round)
            let write = await exchange(http, .POST, "\(base)/v1/zones/\(family.zone)/records/modify", credential: family.parent, body: body)
            if let write {
                figures.writes.append(write.seconds)
                figures.statuses[write.status, default: 0] += 1
            } else {
                figures.noAnswer += 1
            }
            let since = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-._~"))) ?? token
            if let fetch = await exchange(http, .GET, "\(base)/v1/zones/\(family.zone)/changes?since=\(since)", credential: family.child) {
                figures.fetches.append(fetch.seconds)
                figures.statuses[fetch.status, default: 0] += 1
                if fetch.status == 200, let page = try? WireCoding.makeDecoder().decode(ZoneChangesResponse.self, from: Data(fetch.body.readableBytesView)) {
                    token = page.changeToken
                    if write?.status == 200, page.records.isEmpty { figures.staleFetches += 1 }
                }
            } else {
                figures.noAnswer += 1
            }
            next += tick
            let now = ContinuousClock.now
            if next > now { try await Task.sleep(until: next, clock: .continuous) } else { next = now }
        }
        return (figures, token)
    }

    // MARK: - The bursting family

    struct BurstFigures {
        /// Latencies of the writes answered 200 within the window.
        var written: [Double] = []
        var shed: [TryAgainReason: Int] = [:]
        var otherStatuses: [Int: Int] = [:]
        var noAnswer = 0

        mutating func add(_ other: BurstFigures) {
            written += other.written
            shed.merge(other.shed, uniquingKeysWith: +)
            otherStatuses.merge(other.otherStatuses, uniquingKeysWith: +)
            noAnswer += other.noAnswer
        }
    }

    /// One writer of the bursting family: one-record modifies of its own record back to back
    /// until the window closes. A 503 that shed it waits its `Retry-After`, grown by up to half at random, as
    /// the SDK does (within the window), or, `ignoring` it, goes again at once. What is answered
    /// within `window` is counted.
    static func burstWriter(
        _ family: Family, writer: Int, http: HTTPClient, base: String, window: ClosedRange<ContinuousClock.Instant>, ignoring: Bool = false
    ) async throws -> BurstFigures {
        var figures = BurstFigures()
        var round = 0
        while ContinuousClock.now < window.upperBound {
            round += 1
            let answer = await exchange(http, .POST, "\(base)/v1/zones/\(family.zone)/records/modify", credential: family.parent, body: try modifyBody("burst-\(writer)", round: round))
            let counted = window.contains(ContinuousClock.now)
            guard let answer else {
                if counted { figures.noAnswer += 1 }
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            if answer.status == 200 {
                if counted { figures.written.append(answer.seconds) }
            } else if let reason = answer.shedReason {
                if counted { figures.shed[reason, default: 0] += 1 }
                if ignoring { continue }
                let wait = Duration.seconds(answer.retryAfter ?? reason.retryAfter) * Double.random(in: 1...1.5)
                try await Task.sleep(until: min(ContinuousClock.now + wait, window.upperBound), clock: .continuous)
            } else {
                if counted { figures.otherStatuses[answer.status, default: 0] += 1 }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        return figures
    }

    // MARK: - The run

    static func measure(port: Int, serverPID: Int32, writers: Int, duration: Int, quietCount: Int, ignoring: Bool) async throws {
        let base = "http://127.0.0.1:\(port)"
        // Each side its own client and connections, so that the burst's queue in the client is
        // not the quiet families'.
        func client(_ connections: Int) -> HTTPClient {
            var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10), read: .seconds(60)))
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections
            return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }
        let quietHTTP = client(2 * quietCount + 4)
        let burstHTTP = client(writers + 4)
        do {
            let api = API(base: base, http: quietHTTP)
            let burstFamily = try await pairedFamily(api, name: "Burst")
            var quietFamilies: [Family] = []
            var tokens: [String] = []
            for index in 0..<quietCount {
                let family = try await pairedFamily(api, name: "Quiet \(index + 1)")
                quietFamilies.append(family)
                tokens.append(try await api.get("/v1/zones/\(family.zone)/changes", credential: family.child, as: ZoneChangesResponse.self).changeToken)
            }
            let families = quietFamilies

            /// The quiet families from `start` for `length`, each its own task; their tokens carry on.
            func quietPhase(from start: ContinuousClock.Instant, for length: Duration) async throws -> [QuietFigures] {
                let end = start + length
                let results = try await withThrowingTaskGroup(of: (Int, QuietFigures, String).self) { group in
                    for (index, family) in families.enumerated() {
                        let token = tokens[index]
                        group.addTask {
                            let (figures, token) = try await quiet(family, http: quietHTTP, base: base, token: token, from: start, until: end)
                            return (index, figures, token)
                        }
                    }
                    return try await group.reduce(into: [Int: (QuietFigures, String)]()) { $0[$1.0] = ($1.1, $1.2) }
                }
                tokens = (0..<families.count).map { results[$0]!.1 }
                return (0..<families.count).map { results[$0]!.0 }
            }

            // A few unmeasured rounds: connections open, the server's paths warm.
            _ = try await quietPhase(from: .now, for: .seconds(1))
            _ = try await burstWriter(burstFamily, writer: 0, http: burstHTTP, base: base, window: ContinuousClock.now...(ContinuousClock.now + .milliseconds(500)))

            var cpu = try ProcessSample(pid: serverPID).cpuSeconds
            let aloneStart = ContinuousClock.now + .milliseconds(100)
            let alone = try await quietPhase(from: aloneStart, for: .seconds(duration))
            let aloneCPU = (try ProcessSample(pid: serverPID).cpuSeconds - cpu) / Double(duration)

            let burstStart = ContinuousClock.now
            let windowStart = burstStart + warmUp
            let window = windowStart...(windowStart + .seconds(duration))
            cpu = try ProcessSample(pid: serverPID).cpuSeconds
            let (during, burst) = try await withThrowingTaskGroup(of: BurstFigures.self) { group in
                for writer in 0..<writers {
                    group.addTask { try await burstWriter(burstFamily, writer: writer, http: burstHTTP, base: base, window: window, ignoring: ignoring) }
                }
                let during = try await quietPhase(from: windowStart, for: .seconds(duration))
                let burst = try await group.reduce(into: BurstFigures()) { $0.add($1) }
                return (during, burst)
            }
            let burstCPU = (try ProcessSample(pid: serverPID).cpuSeconds - cpu) / seconds(ContinuousClock.now - burstStart)

            report(alone: alone, during: during, burst: burst, duration: duration, serverCPU: (aloneCPU, burstCPU))
        } catch {
            try? await quietHTTP.shutdown()
            try? await burstHTTP.shutdown()
            throw error
        }
        try await quietHTTP.shutdown()
        try await burstHTTP.shutdown()
    }

    // MARK: - The report

    static func report(alone: [QuietFigures], during: [QuietFigures], burst: BurstFigures, duration: Int, serverCPU: (alone: Double, burst: Double)) {
        func ms(_ value: Double) -> String { String(format: "%.2f", value * 1000) }
        func line(_ label: String, _ alone: [Double], _ during: [Double]) -> String {
            guard !alone.isEmpty, !during.isEmpty else { return "\(label) no answers" }
            let (a, d) = (alone.sorted(), during.sorted())
            return "\(label) p50 \(ms(percentile(a, 0.5))) → \(ms(percentile(d, 0.5))) ms (\(String(format: "%.2f", percentile(d, 0.5) / percentile(a, 0.5)))×), "
                + "p99 \(ms(percentile(a, 0.99))) → \(ms(percentile(d, 0.99))) ms (\(String(format: "%.2f", percentile(d, 0.99) / percentile(a, 0.99)))×)"
        }
        func statuses(_ figures: QuietFigures) -> String {
            var other = figures.statuses.filter { !(200..<300).contains($0.key) }.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }
            if figures.noAnswer > 0 { other.append("\(figures.noAnswer) unanswered") }
            return "5xx \(figures.serverErrors), non-2xx \(figures.non2xx)" + (other.isEmpty ? "" : " [\(other.joined(separator: ", "))]")
        }
        var allAlone = QuietFigures()
        var allDuring = QuietFigures()
        for index in alone.indices {
            allAlone.add(alone[index])
            allDuring.add(during[index])
            print("    quiet family \(index + 1), alone → during the burst (\(alone[index].writes.count) → \(during[index].writes.count) rounds):")
            print("      " + line("write", alone[index].writes, during[index].writes))
            print("      " + line("fetch", alone[index].fetches, during[index].fetches))
            print("      alone \(statuses(alone[index])); during \(statuses(during[index]))")
        }
        print("    all quiet families:")
        print("      " + line("write", allAlone.writes, allDuring.writes))
        print("      " + line("fetch", allAlone.fetches, allDuring.fetches))
        print("      alone \(statuses(allAlone)); during \(statuses(allDuring))" + (allAlone.staleFetches + allDuring.staleFetches > 0 ? "; fetches without the write before them: \(allAlone.staleFetches + allDuring.staleFetches)" : ""))
        let written = burst.written.sorted()
        let shed = burst.shed.values.reduce(0, +)
        print("    bursting family: \(String(format: "%.0f", Double(written.count) / Double(duration))) writes/s"
              + (written.isEmpty ? "" : " (p50 \(ms(percentile(written, 0.5))) ms, p99 \(ms(percentile(written, 0.99))) ms)")
              + "; 503 \(shed): family busy \(burst.shed[.familyBusy] ?? 0), pool \(burst.shed[.poolExhausted] ?? 0), database \(burst.shed[.databaseUnavailable] ?? 0)"
              + "; other non-2xx \(burst.otherStatuses.values.reduce(0, +))" + (burst.otherStatuses.isEmpty ? "" : " \(burst.otherStatuses.sorted { $0.key < $1.key })")
              + "; unanswered \(burst.noAnswer)")
        print(String(format: "    server CPU (cores): %.2f alone, %.2f during the burst", serverCPU.alone, serverCPU.burst))
        let ratio = percentile(allDuring.writes.sorted(), 0.5) / percentile(allAlone.writes.sorted(), 0.5)
        let met = ratio <= 3 && allAlone.serverErrors + allDuring.serverErrors == 0
        print(String(format: "    aim (quiet write p50 during ≤ 3× alone, no 5xx): %.2f×, %d 5xx: %@", ratio, allAlone.serverErrors + allDuring.serverErrors, met ? "met" : "not met"))
    }

    /// The server's log (warnings and errors: every request answered 5xx, shed ones included),
    /// counted by the error it names; then removed.
    static func summariseLog(_ path: String) {
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            // "… error=CODE: reason hb.request.id=…": the error and its reason, without the ids.
            let key = line.range(of: "error=").map { start in
                String(line[start.upperBound...].prefix { $0 != "\n" }.split(separator: " hb.request.id=").first ?? "")
            } ?? String(line.prefix(160))
            counts[key, default: 0] += 1
        }
        let lines = counts.sorted { $0.value > $1.value }.map { "      \($0.value)× \($0.key)" }
        print("    server log: \(lines.isEmpty ? "nothing logged" : "")")
        for line in lines.prefix(8) { print(line) }
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }
}
