import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import Synchronization

/// `familysync-bench syncneighbour [records] [syncers]`: a quiet family beside another
/// family's full syncs. The server in a process of its own (`BenchServer`); one family's zone
/// holds `records` records, and `syncers` clients of it sync the whole zone back to back (gzip,
/// the compact format, as the SDK asks). A quiet family fetches its zone's changes ("nothing new")
/// every 10 ms, alone for 300 fetches and then for 300 more during the syncs. Each connection's
/// task runs on its event loop (`ConnectionOnItsLoop`), where a page's encoding and compression
/// hold the loop's other connections.
enum SyncNeighbourBenchmark {
    static func run(_ arguments: [String]) async throws {
        let numbers = arguments.compactMap { Int($0) }
        let records = numbers.count > 0 ? numbers[0] : 10_000
        let syncers = numbers.count > 1 ? numbers[1] : 2
        var logger = Logger(label: "familysync.bench.syncneighbour")
        logger.logLevel = .warning
        let bench = try await SeparateServerBench.start(connections: syncers + 2)
        let (server, port) = try BenchServer.launch(databaseURL: bench.url)
        do {
            let api = API(base: "http://127.0.0.1:\(port)", http: bench.client)
            let fixture = try await ZoneFixture.make(api)
            try await fixture.writeApps(records, through: api)
            try await PeerSyncBenchmark.analyze(bench.url, logger: logger)
            let quiet = try await api.nothingNewFetch()
            print("sync neighbour: \(records) records synced by \(syncers) clients at once beside a quiet family's fetch every 10 ms")

            func fetches(_ count: Int) async throws -> [Double] {
                var times: [Double] = []
                for _ in 0..<count {
                    let start = ContinuousClock.now
                    _ = try await api.get(quiet.path, credential: quiet.credential, as: ZoneChangesResponse.self)
                    times.append(seconds(ContinuousClock.now - start))
                    try await Task.sleep(for: .milliseconds(10))
                }
                return times
            }
            _ = try await fetches(50)
            let alone = try await fetches(300)
            let stop = StopFlag()
            let (during, syncs) = try await withThrowingTaskGroup(of: (fetches: [Double]?, syncs: Int).self) { group in
                for _ in 0..<syncers {
                    group.addTask {
                        var count = 0
                        while !stop.flag.load(ordering: .relaxed) {
                            _ = try await fixture.fullSync(api, gzip: true, format: .compact, expecting: records)
                            count += 1
                        }
                        return (nil, count)
                    }
                }
                group.addTask {
                    // The syncs under way first.
                    try await Task.sleep(for: .milliseconds(500))
                    let measured = try await fetches(300)
                    stop.flag.store(true, ordering: .relaxed)
                    return (measured, 0)
                }
                var during: [Double] = []
                var syncs = 0
                for try await result in group {
                    if let fetches = result.fetches { during = fetches }
                    syncs += result.syncs
                }
                return (during, syncs)
            }
            func p(_ values: [Double], _ q: Double) -> Double { percentile(values.sorted(), q) * 1000 }
            print(String(format: "  quiet fetch p50 %.2f → %.2f ms (%.2f×), p99 %.2f → %.2f ms (%.2f×); %d full syncs during",
                         p(alone, 0.5), p(during, 0.5), p(during, 0.5) / p(alone, 0.5), p(alone, 0.99), p(during, 0.99), p(during, 0.99) / p(alone, 0.99), syncs))
        } catch {
            print("benchmark failed: \(error)")
        }
        // The server before its database, which it would otherwise log as gone.
        await server.stopGently()
        try await bench.stop()
    }
}

/// Set by the quiet family's task when it has measured: the syncing clients stop.
private final class StopFlag: Sendable {
    let flag = Atomic<Bool>(false)
}
