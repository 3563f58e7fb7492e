import AsyncHTTPClient
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import Synchronization

/// Whether a server is idle again after a burst of load, with the server in a process of its own:
/// its CPU for 10 s before the burst (the baseline), the burst ("nothing new" zone fetches from
/// `connections` clients at once), then its CPU over the 80 s after, in windows, leasing from the
/// `LoopBoundPool` `familysync serve` uses (docs/operations.md, "Connections").
enum AfterLoadBenchmark {
    static func run(_ arguments: [String]) async throws {
        let burst = arguments.count > 0 ? Int(arguments[0]) ?? 20 : 20
        let connections = arguments.count > 1 ? Int(arguments[1]) ?? 16 : 16
        let bench = try await SeparateServerBench.start(connections: connections)
        print("FamilySync after-load benchmark: \(burst) s of \"nothing new\" fetches from \(connections) clients, server in its own process")
        do {
            let (server, port) = try BenchServer.launch(databaseURL: bench.url)
            defer {
                server.terminate()
                server.waitUntilExit()
            }
            try await measure(pid: server.processIdentifier, api: API(base: "http://127.0.0.1:\(port)", http: bench.client), burst: burst, connections: connections,
                              label: "LoopBoundPool (serve)")
        } catch {
            print("benchmark failed: \(error)")
        }
        try await bench.stop()
    }

    static func measure(pid: Int32, api: API, burst: Int, connections: Int, label: String) async throws {
        let (credential, fetch) = try await api.nothingNewFetch()
        func cpu(over seconds: Double) async throws -> Double {
            let start = try ProcessSample(pid: pid).cpuSeconds
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return (try ProcessSample(pid: pid).cpuSeconds - start) / seconds
        }
        let idle = try await cpu(over: 10)
        let count = Counter()
        let end = ContinuousClock.now + .seconds(burst)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<connections {
                group.addTask {
                    while ContinuousClock.now < end {
                        _ = try await api.get(fetch, credential: credential, as: ZoneChangesResponse.self)
                        count.value.add(1, ordering: .relaxed)
                    }
                }
            }
            try await group.waitForAll()
        }
        let first = try await cpu(over: 10)
        let second = try await cpu(over: 30)
        let third = try await cpu(over: 40)
        let worst = max(first, second, third)
        print(String(format: "  %@: burst %.0f req/s; server CPU (cores) before %.4f, after 0–10 s %.4f, 10–40 s %.4f, 40–80 s %.4f; worst window / before %.1f",
                     label, Double(count.value.load(ordering: .relaxed)) / Double(burst), idle, first, second, third, worst / max(idle, 0.0001)))
    }

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }
}
