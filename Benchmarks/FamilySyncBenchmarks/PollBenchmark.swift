import AsyncHTTPClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO

/// Long polls (PROTOCOL §6), with the server in a process of its own:
/// (a) wake latency from a writer's COMMIT to the poller's answer with `held` polls held, next to
///     the raw COMMIT → LISTEN delivery the harness measures on its own connection in the same run;
/// (b) how many idle polls the server holds, and its resident memory per poll: sent all at once, and
///     (b') in waves of 100;
/// (c) the server's CPU while they idle;
/// (d) the memory of as many keep-alive connections with no request in them, the floor under (b).
/// A fourth argument `h2`: the server serves HTTPS and each poll is a stream of an HTTP/2
/// connection, 90 to a connection (AsyncHTTPClient keeps one HTTP/2 connection a host, so the
/// harness has a client for each 90); (d) is left out.
enum PollBenchmark {
    static func run(_ arguments: [String]) async throws {
        let heldCount = arguments.count > 0 ? Int(arguments[0]) ?? 1000 : 1000
        let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 500 : 500
        let idleCount = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
        let overHTTP2 = arguments.count > 3 && arguments[3] == "h2"
        var logger = Logger(label: "familysync.bench")
        logger.logLevel = .warning
        raiseOpenFileLimit()

        let database = try await BenchDatabase.start(directory: "/tmp/familysync-bench-\(getpid())", maxConnections: 200, logger: logger)
        let url = database.url
        let tls = overHTTP2 ? try BenchTLS.make(in: "/tmp/familysync-bench-\(getpid())-tls") : nil
        defer { tls.map { try? FileManager.default.removeItem(atPath: $0.directory) } }
        let scheme = overHTTP2 ? "https" : "http"
        if overHTTP2 { print("over HTTPS and HTTP/2: every poll a stream") }
        // Migrated by a first server run; the measured server then starts on a ready database.
        var (server, port) = try BenchServer.launch(databaseURL: url, tls: tls)
        var http = HTTPClient.Configuration(timeout: .init(connect: .seconds(30), read: .seconds(120)))
        http.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = idleCount + 1000
        http.connectionPool.idleTimeout = .seconds(5)
        if let tls { http = try tls.clientConfiguration(http) }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
        let api = API(base: "\(scheme)://127.0.0.1:\(port)", http: client)
        // The polls' clients: over HTTP/2 one a 90 streams, under the server's 100 a connection.
        let pollClients = overHTTP2 ? [client] + (1..<(max(heldCount, idleCount) + 89) / 90).map { _ in HTTPClient(eventLoopGroupProvider: .singleton, configuration: http) } : [client]
        func apis(_ port: Int) -> [API] { pollClients.map { API(base: "\(scheme)://127.0.0.1:\(port)", http: $0) } }
        do {
            let families = try await createFamilies(max(heldCount, (idleCount + 3) / 4), api: api)
            let before = try ProcessSample(pid: server.processIdentifier)
            try await wakeLatency(families: Array(families.prefix(heldCount)), rounds: rounds, url: url, apis: apis(port), logger: logger)
            server.terminate()
            server.waitUntilExit()

            // A fresh server process for the idle figures, so that (a)'s traffic does not count.
            (server, port) = try BenchServer.launch(databaseURL: url, tls: tls)
            try await idle(count: idleCount, families: families, server: server, apis: apis(port), url: url, logger: logger, startupRSS: before.residentBytes)

            // The same polls arriving in waves, as devices do: what stays with a held poll once
            // the requests' transient memory (a burst's thousands of first reads at once, freed
            // but kept by malloc) is out of the figure.
            (server, port) = try BenchServer.launch(databaseURL: url, tls: tls)
            try await idle(
                count: idleCount, families: families, server: server, apis: apis(port), url: url, logger: logger,
                startupRSS: before.residentBytes, wave: 100
            )

            // And a fresh one for what a connection costs with no request in it.
            if !overHTTP2 {
                (server, port) = try BenchServer.launch(databaseURL: url)
                try await keepAlive(count: idleCount, server: server, port: port)
            }
        } catch {
            print("benchmark failed: \(error)")
        }
        if server.isRunning {
            server.terminate()
            server.waitUntilExit()
        }
        for client in pollClients { try await client.shutdown() }
        try await database.stop()
    }

    struct Family: Sendable {
        var familyID: UUID
        var credential: String
    }

    static func createFamilies(_ count: Int, api: API) async throws -> [Family] {
        try await withThrowingTaskGroup(of: [Family].self) { group in
            let lanes = 8
            for lane in 0..<lanes {
                group.addTask {
                    var made: [Family] = []
                    for _ in stride(from: lane, to: count, by: lanes) {
                        let created = try await api.send(
                            .POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Bench parent", platform: .ios, timeZone: "UTC")),
                            as: CreateFamilyResponse.self
                        )
                        made.append(Family(familyID: created.family.id, credential: created.credential))
                    }
                    return made
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    /// GET /v1/poll; the answer and when it arrived.
    static func poll(_ family: Family, since: String?, timeout: Int, api: API) async throws -> (PollResponse, ContinuousClock.Instant) {
        let answer = try await api.get("/v1/poll?timeout=\(timeout)" + (since.map { "&since=\($0)" } ?? ""), credential: family.credential, as: PollResponse.self)
        return (answer, .now)
    }

    // MARK: (a) wake latency

    static func wakeLatency(families: [Family], rounds: Int, url: DatabaseURL, apis: [API], logger: Logger) async throws {
        let api = apis[0]
        let (answers, answered) = AsyncStream.makeStream(of: (Int, ContinuousClock.Instant).self)
        let (notices, noticed) = AsyncStream.makeStream(of: (String, ContinuousClock.Instant).self)

        // The harness's own listener: the raw COMMIT → LISTEN figure.
        let listener = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: logger)
        let listening = Task {
            try await listener.listen(on: ChangeNoticeChannel.channel) { notifications in
                for try await notification in notifications { noticed.yield((notification.payload, .now)) }
            }
        }
        // The writer: a connection of its own that writes as the server's writers do.
        let writer = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 2, logger: logger)

        // Every family holds a poll; each answer is reported and the poll is made again at once.
        var tokens: [String] = []
        for family in families { tokens.append(try await poll(family, since: nil, timeout: 0, api: api).0.changeToken) }
        let pollers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, family) in families.enumerated() {
                    let first = tokens[index]
                    group.addTask {
                        var token = first
                        while !Task.isCancelled {
                            let (answer, at) = try await poll(family, since: token, timeout: 60, api: apis[index % apis.count])
                            if answer.changed { answered.yield((index, at)) }
                            token = answer.changeToken
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await waitForHeldPolls(families.count, api: api)

        var wakes: [Double] = []
        var raws: [Double] = []
        var answerIterator = answers.makeAsyncIterator()
        var noticeIterator = notices.makeAsyncIterator()
        for round in 0..<rounds {
            let index = round % families.count
            let family = families[index]
            // A change of the family zone, the notice in the same transaction, then COMMIT timed.
            try await writer.query("BEGIN", logger: logger)
            let sequence = try await writer.query(
                "UPDATE families SET change_seq = change_seq + 1 WHERE family_id = \(family.familyID) RETURNING change_seq", logger: logger
            ).decode(Int64.self).first(where: { _ in true })!
            try await writer.query("UPDATE zones SET changed_seq = \(sequence) WHERE family_id = \(family.familyID) AND zone_name = 'family'", logger: logger)
            let payload = ChangeNotice.zone("family", of: family.familyID).payload
            try await writer.query("SELECT pg_notify(\(ChangeNoticeChannel.channel), \(payload))", logger: logger)
            let committed = ContinuousClock.now
            try await writer.query("COMMIT", logger: logger)

            guard let (woken, answeredAt) = await answerIterator.next(), let (raw, deliveredAt) = await noticeIterator.next() else { break }
            guard woken == index, raw == payload else { throw BenchFailure("round \(round): woke \(woken) for \(index), heard \(raw)") }
            wakes.append(seconds(answeredAt - committed))
            raws.append(seconds(deliveredAt - committed))
            // The woken family's poll is made again before its next write comes round.
            if round + 1 < rounds, (round + 1) % families.count == 0 {
                try await waitForHeldPolls(families.count, api: api)
            }
        }
        pollers.cancel()
        listening.cancel()
        try? await writer.close()
        try? await listener.close()

        wakes.sort()
        raws.sort()
        func ms(_ value: Double) -> String { String(format: "%.2f ms", value * 1000) }
        print("FamilySync long-poll benchmark: server in its own process, \(families.count) polls held, \(wakes.count) sequential wakes")
        print("  (a) COMMIT → poll answer at the client:  p50 \(ms(percentile(wakes, 0.5))), p99 \(ms(percentile(wakes, 0.99))), max \(ms(wakes.last ?? 0))")
        print("      COMMIT → raw LISTEN delivery:        p50 \(ms(percentile(raws, 0.5))), p99 \(ms(percentile(raws, 0.99))), max \(ms(raws.last ?? 0))")
        print(String(format: "      ratio of p50s (poll / raw): %.1f", percentile(wakes, 0.5) / percentile(raws, 0.5)))
    }

    // MARK: (b), (c) idle polls

    /// `wave`: the polls are sent that many at a time, each wave held before the next is sent;
    /// nil, all at once.
    static func idle(count: Int, families: [Family], server: Process, apis: [API], url: DatabaseURL, logger: Logger, startupRSS: Int, wave: Int? = nil) async throws {
        let api = apis[0]
        let pid = server.processIdentifier
        try await Task.sleep(for: .seconds(2))
        let empty = try ProcessSample(pid: pid)
        let connectionsBefore = try await databaseConnections(url: url, logger: logger)
        // Four polls per family (the per-device limit), 60 s each: longer than the measurement.
        let started = ContinuousClock.now
        let holders = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    if let wave, index > 0, index % wave == 0 { try await waitForHeldPolls(index, api: api) }
                    let family = families[index / 4]
                    group.addTask { _ = try await poll(family, since: nil, timeout: 60, api: apis[index % apis.count]) }
                }
                try await group.waitForAll()
            }
        }
        try await waitForHeldPolls(count, api: api)
        let registered = seconds(.now - started)
        try await Task.sleep(for: .seconds(2))
        let held = try ProcessSample(pid: pid)
        let connectionsHeld = try await databaseConnections(url: url, logger: logger)
        let sockets = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)"))?.hasPrefix("socket:") == true
        }.count ?? 0
        let window = 10.0
        try await Task.sleep(for: .seconds(window))
        let after = try ProcessSample(pid: pid)

        // Shutdown with them all held: each is answered, then the process exits.
        let stopping = ContinuousClock.now
        server.terminate()
        server.waitUntilExit()
        let shutdown = seconds(.now - stopping)
        _ = try? await holders.value

        let perPoll = Double(held.residentBytes - empty.residentBytes) / Double(count)
        print("  (b\(wave == nil ? "" : "'")) \(count) idle polls held (4 per device, \(count / 4) devices\(wave.map { ", sent \($0) at a time" } ?? "")), all subscribed \(String(format: "%.1f", registered)) s after the first was sent")
        print(String(format: "      server RSS: %.1f MiB idle, %.1f MiB with them held: %.1f KiB per poll", Double(empty.residentBytes) / 1_048_576, Double(held.residentBytes) / 1_048_576, perPoll / 1024))
        print("      database connections of the server: \(connectionsBefore) before, \(connectionsHeld) with the polls held; its sockets in all: \(sockets)")
        print(String(format: "  (c) server CPU while they idle: %.2f %% of one core over %.0f s (%.3f s of CPU)", (after.cpuSeconds - held.cpuSeconds) / window * 100, window, after.cpuSeconds - held.cpuSeconds))
        print(String(format: "      SIGTERM with %d polls held → exit: %.2f s", count, shutdown))
    }

    // MARK: (d) idle keep-alive connections

    /// `count` connections that each had one request answered (`GET /health/live`) and stay open
    /// with nothing in them: what a connection costs the server apart from a request, the floor
    /// under a held poll's memory.
    static func keepAlive(count: Int, server: Process, port: Int) async throws {
        let pid = server.processIdentifier
        try await Task.sleep(for: .seconds(2))
        let empty = try ProcessSample(pid: pid)
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        let request = Array("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<count {
            let socket = try connectedSocket(port: port)
            sockets.append(socket)
            guard send(socket, request, request.count, 0) == request.count else { throw BenchFailure("send failed") }
            // The answer is a few hundred bytes: read until its body's closing brace.
            var received = 0
            repeat {
                let read = recv(socket, &buffer[received], buffer.count - received, 0)
                guard read > 0 else { throw BenchFailure("the server closed a keep-alive connection") }
                received += read
            } while buffer[received - 1] != UInt8(ascii: "}")
        }
        try await Task.sleep(for: .seconds(2))
        let held = try ProcessSample(pid: pid)
        server.terminate()
        server.waitUntilExit()
        let perConnection = Double(held.residentBytes - empty.residentBytes) / Double(count)
        print("  (d) \(count) keep-alive connections, each after one answered request, idle")
        print(String(format: "      server RSS: %.1f MiB idle, %.1f MiB with them open: %.1f KiB per connection", Double(empty.residentBytes) / 1_048_576, Double(held.residentBytes) / 1_048_576, perConnection / 1024))
    }

    static func connectedSocket(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchFailure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw BenchFailure("connect: errno \(errno)")
        }
        return socket
    }

    static func databaseConnections(url: DatabaseURL, logger: Logger) async throws -> Int {
        let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 3, logger: logger)
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query("SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()", logger: logger)
        return try await rows.decode(Int.self).first(where: { _ in true }) ?? 0
    }

    /// Waits until the server's active-poll gauge (on /metrics) reaches `count`.
    static func waitForHeldPolls(_ count: Int, api: API) async throws {
        for _ in 0..<12_000 {
            let response = try await api.http.execute(HTTPClientRequest(url: api.base + "/metrics"), timeout: .seconds(30))
            let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("familysync_polls_active ") }),
                let value = Double(line.split(separator: " ")[1]), Int(value) >= count {
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchFailure("the server never held \(count) polls")
    }

    static func raiseOpenFileLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
