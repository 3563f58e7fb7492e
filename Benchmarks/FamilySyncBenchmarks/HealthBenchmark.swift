import AsyncHTTPClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// Device health (PROTOCOL §10) with the server in a process of its own:
/// (a) capacity: every device's heartbeat as fast as 16 connections send them, next to the same
///     number of plain `UPDATE device_health … WHERE family_id = … AND device_id = …` statements
///     through PostgresNIO on 16 connections, in the same run;
/// (b) steady load: every device heartbeating every 30 s for some minutes of real time: the
///     server's CPU, the database's transactions a second, and the `health` records written (what
///     the change feeds carry), per hour.
enum HealthBenchmark {
    static func run(_ arguments: [String]) async throws {
        let deviceCount = arguments.count > 0 ? Int(arguments[0]) ?? 10_000 : 10_000
        let minutes = arguments.count > 1 ? Double(arguments[1]) ?? 6 : 6
        let logger = {
            var logger = Logger(label: "familysync.bench")
            logger.logLevel = .warning
            return logger
        }()
        PollBenchmark.raiseOpenFileLimit()

        let directory = "/tmp/familysync-bench-\(getpid())"
        let embedded = EmbeddedPostgres(
            configuration: .init(dataDirectory: directory, durability: .durable, maxConnections: 200), binaries: try PostgresBinaries.find(), logger: logger
        )
        let url = try await embedded.start()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (server, port) = try BenchServer.launch(databaseURL: url)
        var http = HTTPClient.Configuration(timeout: .init(connect: .seconds(30), read: .seconds(120)))
        http.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
        let api = API(base: "http://127.0.0.1:\(port)", http: client)
        let postgres = PostgresClient(configuration: url.floorClient(connections: LoopBoundPool.defaultLimit), backgroundLogger: logger)
        do {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await postgres.run() }
                defer { group.cancelAll() }
                let clock = ContinuousClock()
                let setupStart = clock.now
                let devices = try await pairDevices(deviceCount, api: api)
                print("FamilySync device-health benchmark: server in its own process, \(devices.count) tracked child devices (set up in \(String(format: "%.0f", seconds(clock.now - setupStart))) s)")

                // (a) The first heartbeat of each (the full path: the row, the record), then two
                // rounds of quiet ones, 16 at a time.
                let first = try await heartbeats(devices, lanes: 16, api: api)
                let beforeQuiet = try await counters(postgres, logger: logger)
                let quiet = try await heartbeats(devices + devices, lanes: 16, api: api)
                let afterQuiet = try await counters(postgres, logger: logger)
                let baselineStart = clock.now
                try await withThrowingTaskGroup(of: Void.self) { lanes in
                    for lane in 0..<16 {
                        lanes.addTask {
                            for index in stride(from: lane, to: devices.count * 2, by: 16) {
                                let device = devices[index % devices.count]
                                try await postgres.query(
                                    "UPDATE device_health SET last_heartbeat_at = now() WHERE family_id = \(device.familyID) AND device_id = \(device.deviceID)",
                                    logger: logger
                                )
                            }
                        }
                    }
                    try await lanes.waitForAll()
                }
                let baseline = Double(devices.count * 2) / seconds(clock.now - baselineStart)
                print(String(format: "  first heartbeats (row and record written): %.0f/s", first))
                print(String(format: "  quiet heartbeats, 16 connections: %.0f/s (%.2f database transactions each, %d records written)", quiet,
                             Double(afterQuiet.transactions - beforeQuiet.transactions) / Double(devices.count * 2), afterQuiet.records - beforeQuiet.records))
                print(String(format: "  baseline UPDATE device_health … (PostgresNIO, 16 connections): %.0f/s", baseline))
                print(String(format: "  ratio quiet heartbeats / baseline: %.2f", quiet / baseline))

                // (b) Every device every 30 s, spread evenly, for `minutes` of real time.
                let before = try await counters(postgres, logger: logger)
                let cpuBefore = try ProcessSample(pid: server.processIdentifier)
                let steadyStart = clock.now
                let rounds = max(1, Int((minutes * 60 / 30).rounded()))
                var lateness: [Double] = []
                for round in 0..<rounds {
                    let roundStart = steadyStart + .seconds(30 * round)
                    lateness += try await paced(devices, from: roundStart, over: .seconds(30), api: api)
                }
                let wall = seconds(clock.now - steadyStart)
                let cpuAfter = try ProcessSample(pid: server.processIdentifier)
                let after = try await counters(postgres, logger: logger)
                let heartbeatsPerSecond = Double(devices.count * rounds) / wall
                print(String(format: "  steady: %d devices every 30 s for %.1f min (%.0f heartbeats/s)", devices.count, wall / 60, heartbeatsPerSecond))
                print(String(format: "    server CPU: %.1f %% of one core (%.0f µs a heartbeat), resident %.0f MiB",
                             (cpuAfter.cpuSeconds - cpuBefore.cpuSeconds) / wall * 100,
                             (cpuAfter.cpuSeconds - cpuBefore.cpuSeconds) / Double(devices.count * rounds) * 1e6, Double(cpuAfter.residentBytes) / 1_048_576))
                print(String(format: "    database: %.0f transactions/s (%.2f a heartbeat)", Double(after.transactions - before.transactions) / wall,
                             Double(after.transactions - before.transactions) / Double(devices.count * rounds)))
                let writes = Double(after.records - before.records)
                print(String(format: "    health records written: %.0f in %.1f min, %.0f an hour (%.1f a device an hour)", writes, wall / 60, writes / wall * 3600,
                             writes / wall * 3600 / Double(devices.count)))
                let sorted = lateness.sorted()
                print(String(format: "    heartbeat answer p50 %.1f ms, p99 %.1f ms", percentile(sorted, 0.5) * 1000, percentile(sorted, 0.99) * 1000))
            }
        } catch {
            print("benchmark failed: \(error)")
        }
        server.terminate()
        server.waitUntilExit()
        try await client.shutdown()
        try await embedded.stop()
    }

    struct Device: Sendable {
        var familyID: UUID
        var deviceID: UUID
        var credential: String
    }

    /// Families of 40 children each (a family holds 50 members), paired over HTTP, 8 families at once.
    static func pairDevices(_ count: Int, api: API) async throws -> [Device] {
        let perFamily = 40
        let families = (count + perFamily - 1) / perFamily
        return try await withThrowingTaskGroup(of: [Device].self) { group in
            for lane in 0..<8 {
                group.addTask {
                    var made: [Device] = []
                    for family in stride(from: lane, to: families, by: 8) {
                        let created = try await api.send(
                            .POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Bench parent", platform: .ios, timeZone: "UTC")), as: CreateFamilyResponse.self
                        )
                        for _ in 0..<min(perFamily, count - family * perFamily) {
                            let invitation = try await api.send(.POST, "/v1/pairings", credential: created.credential, body: CreatePairingRequest(role: .child), as: CreatePairingResponse.self)
                            let accepted = try await api.send(
                                .POST, "/v1/pairings/accept", body: AcceptPairingRequest(qrPayload: invitation.qrPayload, device: .init(name: "Bench iPad", platform: .ipados, timeZone: "UTC")),
                                as: AcceptPairingResponse.self
                            )
                            _ = try await api.send(.POST, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: created.credential, body: Empty(), as: PairingBody.self)
                            made.append(Device(familyID: created.family.id, deviceID: accepted.device.id, credential: accepted.credential))
                        }
                    }
                    return made
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    static func heartbeat(_ device: Device, api: API) async throws {
        var request = HTTPClientRequest(url: api.base + "/v1/devices/me/health")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(device.credential)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"heartbeatAt":"\#(Instant.format(Date()))","monitoringActive":true,"memoryUsageMB":6}"#))
        let response = try await api.http.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw BenchFailure("heartbeat: \(response.status) \(String(buffer: body))") }
    }

    /// Heartbeats of `devices` in order, `lanes` at a time; the rate.
    static func heartbeats(_ devices: [Device], lanes: Int, api: API) async throws -> Double {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    for index in stride(from: lane, to: devices.count, by: lanes) { try await heartbeat(devices[index], api: api) }
                }
            }
            try await group.waitForAll()
        }
        return Double(devices.count) / seconds(.now - start)
    }

    /// Every device once, each at its own instant spread evenly over `window` from `start`; the
    /// answers' times.
    static func paced(_ devices: [Device], from start: ContinuousClock.Instant, over window: Duration, api: API) async throws -> [Double] {
        try await withThrowingTaskGroup(of: [Double].self) { group in
            let lanes = 32
            for lane in 0..<lanes {
                group.addTask {
                    var times: [Double] = []
                    for index in stride(from: lane, to: devices.count, by: lanes) {
                        let due = start + window * (Double(index) / Double(devices.count))
                        if due > .now { try await Task.sleep(until: due) }
                        let sent = ContinuousClock.now
                        try await heartbeat(devices[index], api: api)
                        times.append(seconds(.now - sent))
                    }
                    return times
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    /// The database's committed transactions, and the records written in all families (each
    /// write advances its family's sequence by one).
    static func counters(_ postgres: PostgresClient, logger: Logger) async throws -> (transactions: Int64, records: Int64) {
        let transactions = try await postgres.query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()", logger: logger)
            .decode(Int64.self).first { _ in true } ?? 0
        let sequences = try await postgres.query("SELECT COALESCE(sum(change_seq), 0)::bigint FROM families", logger: logger).decode(Int64.self).first { _ in true } ?? 0
        return (transactions, sequences)
    }
}
