import AsyncHTTPClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// `familysync-bench floor [seconds a row] [rounds] [connections] [only=text,…] [takeover]`: what a
/// request costs at the floor of its libraries, beside what FamilySync's cost (Benchmarks/README.md,
/// "The floor"). In one run, rows alternating round by round, each driven by
/// `wrk -t2 -c<connections>` on its own server process:
/// Hummingbird alone; Hummingbird with pgbench -S's read and with a plain `UPDATE`, through
/// each wiring of PostgresNIO (`FloorWiring`), and with `takeover` each again with NIO's loops as
/// the global executor; `pgbench -S` and the `UPDATE` by pgbench itself; FamilySync's nothing-new
/// fetch, quiet heartbeat and a poll carrying it, as `serve` runs (`LoopBoundPool`), and the rungs between the floor's read and nothing-new on
/// the server as served (`FloorLadder`); a one-record modify of 64 families, and one family's write
/// shed while its line is full (`BusyFamilyRefusal`). Each row: req/s, the server's CPU a request
/// (from /proc) and the ratio of its req/s to pgbench -S's in the same round.
enum FloorBenchmark {
    struct Row {
        var name: String
        var run: () async throws -> Measured
    }

    struct Measured {
        var requestsPerSecond: Double
        var cpuMicroseconds: Double?
    }

    static func run(_ arguments: [String]) async throws {
        let seconds = arguments.first.flatMap { Int($0) } ?? 8
        let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 3
        let connections = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 16
        // `only=`: the rows whose names contain one of these, and pgbench -S (a quick look).
        let only = arguments.first { $0.hasPrefix("only=") }.map { $0.dropFirst(5).split(separator: ",").map(String.init) }
        func wanted(_ name: String) -> Bool { only.map { $0.contains { name.contains($0) } || name.hasPrefix("pgbench -S") } ?? true }
        // Every row's server holds its connections from the start: 11 floor servers of 16, two
        // FamilySync servers of 20, pgbench's 16.
        let bench = try await SeparateServerBench.start(connections: 4, databaseConnections: 400)
        var servers: [Process] = []
        defer { for server in servers where server.isRunning { server.terminate() } }
        // The busy family's row lock, held for the whole run.
        var lockHolders: [PostgresConnection] = []
        let url = bench.url.connectionString
        try Shell.run("/usr/bin/pgbench", ["-i", "-q", "-s", "1", url])
        let updateScript = bench.directory + "/update.sql"
        try "\\set aid random(1, 100000)\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n".write(toFile: updateScript, atomically: true, encoding: .utf8)

        func floorServer(_ wiring: FloorWiring, takeover: Bool) throws -> (process: Process, port: Int) {
            let launched = try BenchServer.launch(["floor-serve", url, wiring.rawValue] + (takeover ? ["takeover"] : []))
            servers.append(launched.process)
            return launched
        }
        func familySync(streamLog: Bool = false, ladder: Bool = false) throws -> (process: Process, port: Int) {
            let launched = try BenchServer.launch(databaseURL: bench.url, streamLog: streamLog, ladder: ladder)
            servers.append(launched.process)
            return launched
        }

        var rows: [Row] = []
        let hello = try floorServer(.client, takeover: false)
        rows.append(Row(name: "Hummingbird alone, GET /hello") { try await wrk(hello, "/hello", seconds: seconds, connections: connections) })
        // NIO's loops as Swift's executor helped no wiring (Benchmarks/README.md, "The floor"): its
        // rows only when asked for.
        for takeover in arguments.contains("takeover") ? [false, true] : [false] {
            for wiring in FloorWiring.allCases {
                // The loop's executor preference is what the takeover gives every task.
                if takeover, wiring == .loopExecutor { continue }
                let server = try floorServer(wiring, takeover: takeover)
                let label = "\(wiring.rawValue)\(takeover ? " + takeover" : "")"
                // Hello on the wiring FamilySync serves with: the ladder's first rung's floor.
                if wiring == .poolConnection, !takeover {
                    rows.append(Row(name: "hello: \(label)") { try await wrk(server, "/hello", seconds: seconds, connections: connections) })
                }
                rows.append(Row(name: "read: \(label)") { try await wrk(server, "/read", seconds: seconds, connections: connections) })
                rows.append(Row(name: "UPDATE: \(label)") { try await wrk(server, "/update", seconds: seconds, connections: connections) })
            }
        }
        rows.append(Row(name: "pgbench -S -M prepared") { try pgbench(["-S"], url: url, seconds: seconds, connections: connections) })
        rows.append(Row(name: "pgbench UPDATE -M prepared") { try pgbench(["-f", updateScript], url: url, seconds: seconds, connections: connections) })
        // swift-log's `StreamLogHandler` as it is, against `TextLogHandler` over it (as served).
        let streamLog = try familySync(streamLog: true)
        let streamLogFetch = try await API(base: "http://127.0.0.1:\(streamLog.port)", http: bench.client).nothingNewFetch()
        rows.append(Row(name: "FamilySync nothing-new (StreamLogHandler)") {
            try await wrk(streamLog, streamLogFetch.path, seconds: seconds, connections: connections, headers: ["Authorization: Bearer \(streamLogFetch.credential)"])
        })
        do {
            // As served, with the ladder's rungs (`FloorLadder`) beside the API.
            let server = try familySync(ladder: true)
            let api = API(base: "http://127.0.0.1:\(server.port)", http: bench.client)
            let fetch = try await api.nothingNewFetch()
            let signedIn = ["Authorization: Bearer \(fetch.credential)"]
            for (rung, path, headers) in [
                ("FamilySync's stack, GET hello", "/ladder/hello", [String]()), ("FamilySync's stack, the floor's read", "/ladder/read", []),
                ("+ a credential, GET hello", "/ladder/signed-in/hello", signedIn), ("+ a credential, the floor's read", "/ladder/signed-in/read", signedIn),
            ] {
                rows.append(Row(name: "ladder: \(rung)") { try await wrk(server, path, seconds: seconds, connections: connections, headers: headers) })
            }
            // Many devices, as in life: one device's heartbeats from 16 connections at once would
            // queue on its row's lock.
            let children = try await HealthBenchmark.pairDevices(64, api: api).map(\.credential)
            let heartbeat = try HeartbeatScript.write(credentials: children, to: bench.directory + "/heartbeat.lua")
            rows.append(Row(name: "FamilySync nothing-new") {
                try await wrk(server, fetch.path, seconds: seconds, connections: connections, headers: ["Authorization: Bearer \(fetch.credential)"])
            })
            rows.append(Row(name: "FamilySync quiet heartbeat") {
                try await wrk(server, "/v1/devices/me/health", seconds: seconds, connections: connections, script: heartbeat)
            })
            rows.append(Row(name: "FamilySync POST /v1/poll?timeout=0 (heartbeat)") {
                try await wrk(server, "/v1/poll?timeout=0", seconds: seconds, connections: connections, script: heartbeat)
            })
            // A served write beside a shed one: 64 families' one-record modifies, and one family's
            // while its line is full (PROTOCOL §1.2), refused before the body is read.
            var parents: [String] = []
            for _ in 0..<64 {
                parents.append(try await api.send(
                    .POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Floor parent", platform: .ios, timeZone: "UTC")), as: CreateFamilyResponse.self
                ).credential)
            }
            let writes = try ModifyScript.write(credentials: parents, to: bench.directory + "/modify.lua")
            rows.append(Row(name: "FamilySync write (one-record modify)") {
                try await wrk(server, "/v1/zones/family/records/modify", seconds: seconds, connections: connections, script: writes)
            })
            // No pause after a refusal (`ReadsPausedAfterRefusal`): wrk asks again at once, and the
            // row is the refusal's own cost.
            let busy = try BenchServer.launch(databaseURL: bench.url, waiting: 0, refusalPause: 0)
            servers.append(busy.process)
            let (busyParent, lock) = try await BusyFamily.make(on: busy.port, bench: bench)
            lockHolders.append(lock)
            let shed = try ModifyScript.write(credentials: [busyParent], to: bench.directory + "/modify-busy.lua")
            rows.append(Row(name: "FamilySync write shed (family_busy)") {
                try await wrk(busy, "/v1/zones/family/records/modify", seconds: seconds, connections: connections, script: shed, refused: true)
            })
        }

        rows.removeAll { !wanted($0.name) }
        print("floor: \(seconds) s a row, \(rounds) rounds, \(connections) connections (wrk -t2), release build, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        var results: [[Measured]] = Array(repeating: [], count: rows.count)
        for round in 1...rounds {
            var pgbenchRead = 1.0
            for (index, row) in rows.enumerated() {
                let measured = try await row.run()
                results[index].append(measured)
                if row.name.hasPrefix("pgbench -S") { pgbenchRead = measured.requestsPerSecond }
                let cpu = measured.cpuMicroseconds.map { String(format: "%.0f µs", $0) } ?? "–"
                print(String(format: "round %d  %-58@ %9.0f req/s  %8@ a request", round, row.name as NSString, measured.requestsPerSecond, cpu as NSString))
            }
            print(String(format: "round %d  pgbench -S: %.0f TPS", round, pgbenchRead))
        }
        print("\n| row | req/s (median of \(rounds)) | server CPU a request (median) | ÷ pgbench -S req/s (each round) |")
        print("|---|---|---|---|")
        let readIndex = rows.firstIndex { $0.name.hasPrefix("pgbench -S") }!
        for (index, row) in rows.enumerated() {
            let rates = results[index].map(\.requestsPerSecond)
            let cpu = results[index].compactMap(\.cpuMicroseconds)
            let ratios = zip(rates, results[readIndex].map(\.requestsPerSecond)).map { String(format: "%.3f", $0 / $1) }.joined(separator: " / ")
            print("| \(row.name) | \(String(format: "%.0f", median(rates))) | \(cpu.isEmpty ? "–" : String(format: "%.0f µs", median(cpu))) | \(ratios) |")
        }
        for lock in lockHolders { try? await lock.close() }
        for server in servers {
            server.terminate()
            server.waitUntilExit()
        }
        try await bench.stop()
    }


    /// `wrk` against one server for `seconds`; its req/s, and the server's CPU over the run a request.
    /// Every answer must be 2xx, or with `refused`, none.
    static func wrk(
        _ server: (process: Process, port: Int), _ path: String, seconds: Int, connections: Int, headers: [String] = [], script: String? = nil,
        refused: Bool = false
    ) async throws -> Measured {
        let before = try ProcessSample(pid: server.process.processIdentifier)
        var arguments = ["-t2", "-c\(connections)", "-d\(seconds)s"]
        for header in headers { arguments += ["-H", header] }
        if let script { arguments += ["-s", script] }
        let profile = Profile.start(of: server.process.processIdentifier, path: path, seconds: seconds)
        let output = try Shell.run("/usr/bin/wrk", arguments + ["http://127.0.0.1:\(server.port)\(path)"])
        try profile?.finish()
        let after = try ProcessSample(pid: server.process.processIdentifier)
        let non2xx = output.split(separator: "\n").first { $0.contains("Non-2xx") }
        if refused {
            let total = output.split(separator: "\n").first { $0.contains("requests in") }.flatMap { Double($0.split(separator: " ")[0]) }
            guard let refusals = non2xx.flatMap({ Double($0.split(separator: " ").last ?? "") }), refusals == total else {
                throw BenchFailure("\(path): not every answer was a refusal: \(output)")
            }
        } else if let line = non2xx {
            let sample = (try? Shell.run("/usr/bin/curl", ["-s", "-i", "http://127.0.0.1:\(server.port)\(path)"] + headers.flatMap { ["-H", $0] })) ?? ""
            throw BenchFailure("\(path): \(line.trimmingCharacters(in: .whitespaces)); one of them: \(sample)")
        }
        guard let rate = Shell.number(after: "Requests/sec:", in: output),
            let total = output.split(separator: "\n").first(where: { $0.contains("requests in") }).flatMap({ Double($0.split(separator: " ")[0]) }), total > 0
        else { throw BenchFailure("unexpected wrk output: \(output)") }
        return Measured(requestsPerSecond: rate, cpuMicroseconds: (after.cpuSeconds - before.cpuSeconds) / total * 1e6)
    }

    static func pgbench(_ mode: [String], url: String, seconds: Int, connections: Int) throws -> Measured {
        // pgbench ends a -T run on SIGALRM, which a process started from this one's threads
        // inherits blocked (Foundation's Process keeps the caller's signal mask): it is
        // unblocked before pgbench starts.
        let output = try Shell.run("/usr/bin/python3", ["-c", Shell.unblocked, "/usr/bin/pgbench"] + mode + ["-n", "-M", "prepared", "-c\(connections)", "-j2", "-T\(seconds)", url])
        guard let tps = Shell.number(after: "tps =", in: output) else { throw BenchFailure("unexpected pgbench output: \(output)") }
        return Measured(requestsPerSecond: tps, cpuMicroseconds: nil)
    }
}

/// A wrk script that POSTs a quiet heartbeat (PROTOCOL §10), each request as one of `credentials`'
/// devices in turn, to the path wrk is given.
enum HeartbeatScript {
    static func write(credentials: [String], to path: String) throws -> String {
        let body = #"{"heartbeatAt":"\#(Instant.format(Date()))","monitoringActive":true,"memoryUsageMB":6}"#
        let script = """
            local credentials = { \(credentials.map { "\"\($0)\"" }.joined(separator: ", ")) }
            local next = math.random(#credentials)
            request = function()
                next = next % #credentials + 1
                return wrk.format("POST", nil, { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. credentials[next] }, '\(body)')
            end
            """
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// A wrk script that POSTs a one-record modify into the `family` zone, each request as one of
/// `credentials`' parents in turn, its record's fields changed every time. Each of wrk's threads
/// starts elsewhere in the list, so that two requests in flight are rarely one family's.
enum ModifyScript {
    /// A family zone's own record (a type of the app's, `x-`), with `text`.
    static func body(text: String) -> String {
        #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"floor-note","recordType":"x-note","fields":{"text":"\#(text)"}}}]}"#
    }

    static func write(credentials: [String], to path: String) throws -> String {
        let template = body(text: "%d")
        let script = """
            local credentials = { \(credentials.map { "\"\($0)\"" }.joined(separator: ", ")) }
            local threads = 0
            function setup(thread)
                threads = threads + 1
                thread:set("offset", threads * 1000)
            end
            local next = 0
            local round = 0
            function init(args)
                next = offset or 0
            end
            request = function()
                next = next + 1
                round = round + 1
                return wrk.format("POST", "/v1/zones/family/records/modify", { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. credentials[next % #credentials + 1] }, string.format('\(template)', round % 100))
            end
            """
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// A family whose line of writes is full on a server whose lines hold none (`waiting=0`): its row
/// lock held from outside, one write of its own stuck on it in its turn. Every other write of it is
/// refused until the lock's connection closes.
enum BusyFamily {
    static func make(on port: Int, bench: SeparateServerBench) async throws -> (parent: String, lock: PostgresConnection) {
        let api = API(base: "http://127.0.0.1:\(port)", http: bench.client)
        let family = try await api.send(
            .POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Busy parent", platform: .ios, timeZone: "UTC")), as: CreateFamilyResponse.self
        )
        let logger = Logger(label: "familysync.bench.lock")
        let lock = try await PostgresConnection.connect(configuration: try bench.url.connectionConfiguration(), id: 1, logger: logger)
        try await lock.run("BEGIN", logger: logger)
        try await lock.run("SELECT 1 FROM families WHERE family_id = \(family.family.id) FOR UPDATE", logger: logger)
        func write() -> HTTPClientRequest {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/zones/family/records/modify")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(family.credential)")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: ModifyScript.body(text: "stuck")))
            return request
        }
        // The stuck one: its answer comes when the lock goes, after the run. A look that finds
        // the turn free takes it and is stuck instead (its own wait ends; the server's does not).
        let http = bench.client
        Task { _ = try? await http.execute(write(), timeout: .hours(1)) }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(500))
            guard let answer = try? await http.execute(write(), timeout: .seconds(2)) else { continue }
            _ = try await answer.body.collect(upTo: 1 << 20)
            if answer.status == .serviceUnavailable { return (family.credential, lock) }
        }
        throw BenchFailure("the busy family's line never filled")
    }
}

/// `FAMILYSYNC_FLOOR_PERF=<directory>`: each row's server recorded by `perf record -g` while wrk
/// runs, one file a server and path (`perf report -i` reads it). Rows so recorded pay perf's cost:
/// their figures are for the profile, not the table.
struct Profile {
    let process: Process

    static func start(of pid: Int32, path: String, seconds: Int) -> Profile? {
        guard let directory = ProcessInfo.processInfo.environment["FAMILYSYNC_FLOOR_PERF"] else { return nil }
        let name = "\(pid)" + path.prefix { $0 != "?" }.replacingOccurrences(of: "/", with: "_") + ".data"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        // perf ends on its `sleep`'s SIGCHLD, which it would inherit blocked (see `pgbench`).
        process.arguments = ["-c", Shell.unblocked, "/usr/bin/perf", "record", "-F", "999", "-g", "-p", "\(pid)", "-o", directory + "/" + name, "--", "sleep", "\(seconds)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        return Profile(process: process)
    }

    func finish() throws { process.waitUntilExit() }
}

/// A tool run to its end, its standard output returned; a failure says what it printed.
enum Shell {
    /// Python's `-c` program that runs `argv[1:]` with no signal blocked: a process started by
    /// Foundation's `Process` from one of this process's threads inherits their mask.
    static let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchFailure("\(executable) is not installed (Debian: apt-get install \(URL(fileURLWithPath: executable).lastPathComponent))")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw BenchFailure("\(executable) \(arguments.prefix(3).joined(separator: " ")) failed: \(text)") }
        return text
    }

    /// The number following `label` in `text` ("Requests/sec:   1234.5", "tps = 4567.8").
    static func number(after label: String, in text: String) -> Double? {
        guard let range = text.range(of: label) else { return nil }
        return Double(text[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber || $0 == "." })
    }
}
