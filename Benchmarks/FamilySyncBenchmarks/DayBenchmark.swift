import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// `familysync-bench day [devices] [speed] [hours] [carried|separate]`: what one child's device costs the server a
/// day. Families of a parent and three children; each child does, at `speed` times real
/// time, what an app's monitoring side does around the clock (Benchmarks/README.md, "The cost of a
/// device-day"): its poll held and held again (§6, 30 s), a quiet heartbeat every 30 s (§10),
/// totals every 15 minutes (§9.2), sessions every hour (§5), its push registration once, and what
/// a parent's two writes and one command a day bring it (a wake, a fetch, a result). The run covers
/// `hours` of the simulated day and every figure is scaled to 24 hours, per child device.
/// Half the children ask for gzip and half do not, for the bytes both ways. `carried` (the
/// default): each poll carries the heartbeat (`POST /v1/poll`); `separate`: a heartbeat of its own
/// every 30 s beside `GET /v1/poll`. A fifth argument `https`: the server serves HTTPS and each
/// child device has an HTTP client of its own, so one HTTP/2 connection carries its polls and
/// writes, as a phone's (bytes are then counted as HTTP/1.1 would carry them).
enum DayBenchmark {
    static func run(_ arguments: [String]) async throws {
        let childCount = max(6, (arguments.count > 0 ? Int(arguments[0]) ?? 198 : 198) / 3 * 3)
        // A held poll's 30 s at `speed` is at least 1 s (the API's timeout is in whole seconds).
        let speed = min(30, max(1, arguments.count > 1 ? Double(arguments[1]) ?? 30 : 30))
        let hours = max(0.25, arguments.count > 2 ? Double(arguments[2]) ?? 2 : 2)
        let carried = arguments.count > 3 ? arguments[3] != "separate" : true
        let overHTTPS = arguments.count > 4 && arguments[4] == "https"
        let logger = {
            var logger = Logger(label: "familysync.bench")
            logger.logLevel = .warning
            return logger
        }()
        PollBenchmark.raiseOpenFileLimit()
        let database = try await BenchDatabase.start(directory: "/tmp/familysync-bench-day-\(getpid())", maxConnections: 200, logger: logger)
        let url = database.url
        defer { try? FileManager.default.removeItem(atPath: database.directory) }
        let tls = overHTTPS ? try BenchTLS.make(in: database.directory + "-tls") : nil
        defer { tls.map { try? FileManager.default.removeItem(atPath: $0.directory) } }
        let (server, port) = try BenchServer.launch(databaseURL: url, tls: tls)
        defer { server.terminate() }
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = childCount * 3 + 100
        configuration.connectionPool.retryConnectionEstablishment = false
        if let tls { configuration = try tls.clientConfiguration(configuration) }
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let base = URL(string: "\(overHTTPS ? "https" : "http")://127.0.0.1:\(port)")!
        let compressed = CountingTransport(client: http, gzip: true), plain = CountingTransport(client: http, gzip: false)
        // Over HTTPS each child has a client, so a connection, of its own; their counts are summed.
        var deviceClients: [HTTPClient] = []
        var deviceTransports: [(gzip: Bool, transport: CountingTransport)] = []
        let setup = FamilySyncClient(serverURL: base, transport: AsyncHTTPClientTransport(client: http))
        let postgres = PostgresClient(configuration: url.floorClient(connections: LoopBoundPool.defaultLimit), backgroundLogger: logger)

        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await postgres.run() }
            defer { group.cancelAll() }
            var families: [(parent: FamilySyncClient, children: [DayChild])] = []
            for index in 0..<(childCount / 3) {
                let family = try await setup.createFamily(.init(name: "Day parent \(index)", platform: .ios, timeZone: "UTC"))
                let parent = setup.authenticated(as: family.credential)
                var children: [DayChild] = []
                for number in 0..<3 {
                    let invitation = try await parent.createPairing(.init(role: .child, childName: "Child \(index).\(number)"))
                    let accepted = try await setup.acceptPairing(
                        qrPayload: invitation.qrPayload, device: .init(name: "Day child \(index).\(number)", platform: .ipados, timeZone: "UTC")
                    )
                    _ = try await parent.confirmPairing(invitation.pairing.id)
                    var transport = (index * 3 + number) % 2 == 0 ? compressed : plain
                    if overHTTPS {
                        let own = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                        deviceClients.append(own)
                        transport = CountingTransport(client: own, gzip: transport.gzip)
                        deviceTransports.append((transport.gzip, transport))
                    }
                    let client = FamilySyncClient(serverURL: base, credential: accepted.credential, transport: transport)
                    children.append(DayChild(id: accepted.device.id, client: client, speed: speed, carriesHeartbeats: carried))
                }
                families.append((parent, children))
            }
            let children = families.flatMap(\.children)
            try await Task.sleep(for: .seconds(2))
            let idle = try ProcessSample(pid: server.processIdentifier)
            let before = try await DatabaseCounters.read(postgres, pidFiles: database.postmasterPIDFiles, logger: logger)
            let start = ContinuousClock.now
            let end = start + .seconds(hours * 3600 / speed)
            if overHTTPS { print("over HTTPS: each child device's requests on an HTTP/2 connection of its own") }
            print("device-day: \(children.count) child devices in \(families.count) families, \(Int(speed))× real time, \(hours) simulated hours (\(String(format: "%.1f", hours * 60 / speed)) real minutes), heartbeats \(carried ? "carried by the polls" : "separate")")

            let sampling = Task {
                var peak = 0
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    if let sample = try? ProcessSample(pid: server.processIdentifier) { peak = max(peak, sample.residentBytes) }
                }
                return peak
            }
            await withTaskGroup(of: Void.self) { devices in
                for child in children { devices.addTask { await child.run(until: end) } }
                for family in families {
                    devices.addTask { await DayParent.run(family.parent, children: family.children.map(\.id), speed: speed, hours: hours, until: end) }
                }
            }
            sampling.cancel()
            let peakResident = await sampling.value
            let ran = seconds(ContinuousClock.now - start)
            try await Task.sleep(for: .seconds(1.5))  // the statistics collector's interval
            let after = try await DatabaseCounters.read(postgres, pidFiles: database.postmasterPIDFiles, logger: logger)
            let busy = try ProcessSample(pid: server.processIdentifier)

            // Per child device and simulated day, from the simulated time the run took.
            let simulatedHours = ran * speed / 3600
            let scale = 24 / simulatedHours / Double(children.count)
            func summed(gzip: Bool, _ shared: CountingTransport) -> CountingTransport.Totals {
                deviceTransports.filter { $0.gzip == gzip }.map(\.transport.snapshot).reduce(shared.snapshot) {
                    CountingTransport.Totals(requests: $0.requests + $1.requests, sent: $0.sent + $1.sent, received: $0.received + $1.received)
                }
            }
            let halves = [("gzip", summed(gzip: true, compressed), children.count - children.count / 2), ("plain", summed(gzip: false, plain), children.count / 2)]
            let ledger = children.map { child in child.ledger.withLock { $0 } }.reduce(DayChild.Ledger(), +)
            func perDay(_ value: Double) -> String { String(format: "%.0f", value * scale) }
            print(String(format: "ran %.1f s (%.2f simulated hours); %d requests, %d failed", ran, simulatedHours, ledger.requests, ledger.failures))
            print("per child device-day:")
            print("  requests: \(perDay(Double(ledger.requests - ledger.other))) and the push registration once (polls \(perDay(Double(ledger.polls))), of which woken \(perDay(Double(ledger.wakes))); heartbeats \(perDay(Double(ledger.heartbeats))); totals \(perDay(Double(ledger.totals))); session uploads \(perDay(Double(ledger.sessions))); fetches \(perDay(Double(ledger.fetches))); command lists and results \(perDay(Double(ledger.commandCalls))))")
            for (name, totals, devices) in halves where devices > 0 {
                let perDevice = 24 / simulatedHours / Double(devices)
                print(String(format: "  bytes (%@): %.2f MB up, %.2f MB down, %.2f MB in all (requests %.0f)", name,
                             Double(totals.sent) * perDevice / 1e6, Double(totals.received) * perDevice / 1e6,
                             Double(totals.sent + totals.received) * perDevice / 1e6, Double(totals.requests) * perDevice))
            }
            print(String(format: "  radio wake-ups (a request after 10 s of quiet, simulated time): %@", perDay(Double(ledger.wakeUps))))
            print(String(format: "  server CPU: %.3f s; database CPU: %.3f s", (busy.cpuSeconds - idle.cpuSeconds) * scale, (after.databaseCPU - before.databaseCPU) * scale))
            if after.nodeCPU.count > 1 {
                // A cluster's nodes in the order named (scripts/citus: the coordinator first).
                let nodes = zip(database.postmasterPIDFiles, zip(after.nodeCPU, before.nodeCPU)).map { file, cpu in
                    String(format: "%@ %.3f s", URL(fileURLWithPath: file).deletingLastPathComponent().lastPathComponent, (cpu.0 - cpu.1) * scale)
                }
                print("  database CPU by node: " + nodes.joined(separator: ", "))
            }
            print(String(format: "  database: %.0f transactions, %.1f KB of WAL", Double(after.transactions - before.transactions) * scale, Double(after.walBytes - before.walBytes) * scale / 1000))
            print(String(format: "memory per connected device: %.1f KiB (server RSS %.1f MiB idle after set-up, %.1f MiB at its peak with every device connected)",
                         Double(max(0, peakResident - idle.residentBytes)) / 1024 / Double(children.count), Double(idle.residentBytes) / 1048576, Double(peakResident) / 1048576))
            let serverCPUPerDeviceDay = (busy.cpuSeconds - idle.cpuSeconds) * scale
            if serverCPUPerDeviceDay > 0 {
                print(String(format: "devices one core's server CPU carries: %.0f (86,400 s a day / %.3f s a device-day)", 86_400 / serverCPUPerDeviceDay, serverCPUPerDeviceDay))
            }
            for client in deviceClients { try? await client.shutdown() }
        }
    }
}

/// The database's side: committed transactions, WAL written, and the CPU of the database's
/// clusters' processes (each postmaster's own and its ended children's, and the live backends').
/// On a Citus cluster the transactions and WAL are the coordinator's only; the CPU is every node's
/// named in `FAMILYSYNC_BENCH_DATABASE_DIRS`.
struct DatabaseCounters {
    var transactions: Int64
    var walBytes: Int64
    /// Each node's, in the order of `pidFiles`.
    var nodeCPU: [Double]
    var databaseCPU: Double { nodeCPU.reduce(0, +) }

    static func read(_ postgres: PostgresClient, pidFiles: [String], logger: Logger) async throws -> DatabaseCounters {
        let transactions = try await postgres.query("SELECT (xact_commit + xact_rollback)::bigint FROM pg_stat_database WHERE datname = current_database()", logger: logger)
            .decode(Int64.self).first { _ in true } ?? 0
        let wal = try await postgres.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint", logger: logger).decode(Int64.self).first { _ in true } ?? 0
        return DatabaseCounters(transactions: transactions, walBytes: wal, nodeCPU: try pidFiles.map { try clusterCPU(pidFile: $0) })
    }

    static func clusterCPU(pidFile: String) throws -> Double {
        let pidFile = try String(contentsOfFile: pidFile, encoding: .utf8)
        guard let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else { throw BenchFailure("no postmaster.pid") }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        func fields(_ pid: String) -> [Substring]? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
            return stat[stat.index(after: close)...].split(separator: " ")
        }
        var total = 0.0
        if let own = fields(String(postmaster)) { total += (Double(own[11])! + Double(own[12])! + Double(own[13])! + Double(own[14])!) / ticks }
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") where Int32(entry) != nil {
            guard let stat = fields(entry), Int32(stat[1]) == postmaster else { continue }
            total += (Double(stat[11])! + Double(stat[12])!) / ticks
        }
        return total
    }
}

/// A child's device through the simulated day.
final class DayChild: Sendable {
    struct Ledger {
        var requests = 0, failures = 0, polls = 0, wakes = 0, heartbeats = 0, totals = 0, sessions = 0, fetches = 0, commandCalls = 0, other = 0
        var wakeUps = 0
        /// When the radio last carried something (real time).
        var lastActive: ContinuousClock.Instant?

        static func + (a: Ledger, b: Ledger) -> Ledger {
            Ledger(
                requests: a.requests + b.requests, failures: a.failures + b.failures, polls: a.polls + b.polls, wakes: a.wakes + b.wakes,
                heartbeats: a.heartbeats + b.heartbeats, totals: a.totals + b.totals, sessions: a.sessions + b.sessions, fetches: a.fetches + b.fetches,
                commandCalls: a.commandCalls + b.commandCalls, other: a.other + b.other, wakeUps: a.wakeUps + b.wakeUps
            )
        }
    }

    let id: UUID
    let client: FamilySyncClient
    let speed: Double
    /// The heartbeat rides on the poll (`POST /v1/poll`) instead of a request of its own.
    let carriesHeartbeats: Bool
    let ledger = Mutex(Ledger())
    static let apps = [("com.khan", "Khan Academy", "learning"), ("com.brawl", "Brawl Stars", "reward"), ("com.tiktok", "TikTok", "social_media")]

    init(id: UUID, client: FamilySyncClient, speed: Double, carriesHeartbeats: Bool) {
        self.id = id
        self.client = client
        self.speed = speed
        self.carriesHeartbeats = carriesHeartbeats
    }

    /// The monitoring side's heartbeat; the notification sequence moves on once an hour.
    func heartbeat(_ round: Int) -> HealthReportRequest {
        HealthReportRequest(heartbeatAt: Date(), monitoringActive: true, memoryUsageMB: 4.2, notificationSequence: Int64(round / 120))
    }

    /// A simulated interval in real time.
    func real(_ simulatedSeconds: Double) -> Duration { .milliseconds(Int(simulatedSeconds * 1000 / speed)) }

    /// One request, counted; a request after 10 simulated seconds of quiet wakes the radio. A held
    /// poll keeps its connection but sends nothing while it waits, so its re-hold counts as
    /// activity only when it is sent.
    func call<T>(_ kind: WritableKeyPath<Ledger, Int>, _ body: () async throws -> T) async -> T? {
        ledger.withLock { ledger in
            let now = ContinuousClock.now
            if ledger.lastActive.map({ now - $0 > real(10) }) ?? true { ledger.wakeUps += 1 }
            ledger.lastActive = now
            ledger.requests += 1
            ledger[keyPath: kind] += 1
        }
        do {
            let answer = try await body()
            ledger.withLock { $0.lastActive = ContinuousClock.now }
            return answer
        } catch {
            ledger.withLock { $0.failures += 1 }
            return nil
        }
    }

    func run(until end: ContinuousClock.Instant) async {
        _ = await call(\.other) { try await client.registerPush(token: String(repeating: "ab", count: 32), topic: "com.example.screentime") }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.polls(until: end) }
            if !carriesHeartbeats {
                group.addTask { await self.every(30, until: end) { round in
                    _ = await self.call(\.heartbeats) { try await self.client.reportHealth(self.heartbeat(round)) }
                } }
            }
            group.addTask { await self.every(900, until: end) { round in
                let date = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
                let apps = Self.apps.enumerated().map { index, app in
                    UsageTotalBody(logicalID: app.0, displayName: app.1, category: app.2, totalSeconds: 60 * (round + 1) * (index + 1), pickups: round)
                }
                _ = await self.call(\.totals) { try await self.client.uploadTotals(UsageTotalsRequest(date: date, apps: apps)) }
            } }
            group.addTask { await self.every(3600, until: end) { _ in
                let now = Date()
                let records = (0..<Int.random(in: 1...3)).map { _ in
                    let app = Self.apps.randomElement()!
                    let length = Double(Int.random(in: 30...240))
                    let start = now.addingTimeInterval(-length - Double(Int.random(in: 1...60)))
                    return UsageRecordBody(
                        recordID: UUID().uuidString, logicalID: app.0, displayName: app.1, category: app.2, sessionStart: start,
                        sessionEnd: start.addingTimeInterval(length), totalSeconds: Int(length)
                    )
                }
                _ = await self.call(\.sessions) { try await self.client.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: records)) }
            } }
        }
    }

    /// Every `simulatedSeconds`, `body` with the round's number, the first at a random offset.
    func every(_ simulatedSeconds: Double, until end: ContinuousClock.Instant, _ body: (Int) async -> Void) async {
        var due = ContinuousClock.now + real(Double.random(in: 0..<simulatedSeconds))
        var round = 0
        while due < end {
            try? await Task.sleep(until: due)
            await body(round)
            round += 1
            due += real(simulatedSeconds)
        }
    }

    /// The long poll, held and held again; on a wake, the changed zones fetched in one request,
    /// and the device's pending commands carried out.
    func polls(until end: ContinuousClock.Instant) async {
        var token: String?
        var zoneTokens: [String: String] = [:]
        let hold = max(1, Int((30 / speed).rounded()))
        var round = 0
        while ContinuousClock.now < end {
            let beat = carriesHeartbeats ? heartbeat(round) : nil
            round += 1
            guard let answer = await call(\.polls, {
                if let beat { return try await client.poll(since: token, timeout: hold, heartbeat: beat) }
                return try await client.poll(since: token, timeout: hold)
            }) else {
                try? await Task.sleep(for: .seconds(1))
                continue
            }
            token = answer.changeToken
            guard answer.changed, let zones = answer.zones, !zones.isEmpty else { continue }
            ledger.withLock { $0.wakes += 1 }
            if let pages = await call(\.fetches, { try await client.changes(inZones: zones.map { .init(zoneName: $0, since: zoneTokens[$0]) }) }) {
                for result in pages { if let next = result.page?.changeToken { zoneTokens[result.zoneName] = next } }
            }
            if zones.contains(Device.zoneName(forChild: id)), let pending = await call(\.commandCalls, { try await client.commands(of: id, status: .pending) }) {
                for command in pending {
                    guard let commandID = UUID(uuidString: command.commandId) else { continue }
                    _ = await call(\.commandCalls) { try await client.reportResult(of: commandID, executed: true) }
                }
            }
        }
    }
}

/// A parent through the simulated day: for each of its children, two `AppConfiguration` writes
/// and one `block` command, at random times of the day.
enum DayParent {
    static func run(_ parent: FamilySyncClient, children: [UUID], speed: Double, hours: Double, until end: ContinuousClock.Instant) async {
        let start = ContinuousClock.now
        // Each child's three events at random instants of a 24-hour day; those in the simulated span happen.
        var events: [(at: Double, child: UUID, command: Bool)] = []
        for child in children {
            for index in 0..<3 { events.append((Double.random(in: 0..<86_400), child, index == 2)) }
        }
        for event in events.filter({ $0.at < hours * 3600 }).sorted(by: { $0.at < $1.at }) {
            let due = start + .milliseconds(Int(event.at * 1000 / speed))
            guard due < end else { break }
            try? await Task.sleep(until: due)
            if event.command {
                _ = try? await parent.sendCommand(to: event.child, CreateCommandRequest(commandType: "block", payload: Command.appsPayload(["com.brawl"])))
            } else {
                let fields: [String: JSONValue] = [
                    "logicalID": .string("com.tiktok"), "displayName": .string("TikTok"), "category": .string("social_media"),
                    "isEnabled": .bool(true), "blockingEnabled": .bool(false),
                ]
                _ = try? await parent.modify(Device.zoneName(forChild: event.child), ModifyRecordsRequest(operations: [RecordOperation(
                    operationType: .forceReplace, record: RecordInput(recordName: "config-tiktok", recordType: "AppConfiguration", fields: fields)
                )]))
            }
        }
    }
}
