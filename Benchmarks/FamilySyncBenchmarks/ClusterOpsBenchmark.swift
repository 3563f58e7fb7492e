import AsyncHTTPClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import PostgresNIO

/// `familysync-bench cluster-ops <database url> <cluster dir> [families] [seconds a phase] [seconds stopped]`
/// (Benchmarks/citus-operations.sh): operations on a Citus cluster that `scripts/citus`
/// started in `cluster dir`, under the load of `ClusterOpsLoad` through two server instances.
/// Phases: before; (a) `scripts/citus add-worker` and a rebalance; after it; (b) worker1 stopped
/// for `seconds stopped`, then started again; after its return. Then every acknowledged write is
/// read back. Run from the repository (it calls scripts/citus).
enum ClusterOpsBenchmark {
    struct Phase {
        var name: String
        var start: Double
        var end: Double
    }

    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 2 else {
            print("usage: familysync-bench cluster-ops <database url> <cluster dir> [families] [seconds a phase] [seconds stopped]")
            exit(2)
        }
        let url = try DatabaseURL(arguments[0])
        let directory = arguments[1]
        let familyCount = arguments.count > 2 ? Int(arguments[2]) ?? 40 : 40
        let phaseSeconds = arguments.count > 3 ? Double(arguments[3]) ?? 45 : 45
        let stoppedSeconds = arguments.count > 4 ? Double(arguments[4]) ?? 30 : 30
        var logger = Logger(label: "familysync.bench")
        logger.logLevel = .warning

        let instances = try (0..<2).map { try BenchServer.launch(databaseURL: url, log: "\(directory)/instance-\($0).log") }
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(60)))
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = familyCount * 3 + 20
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let postgres = PostgresClient(configuration: url.floorClient(connections: 2), backgroundLogger: logger)
        let running = Task { await postgres.run() }
        defer {
            running.cancel()
            for (process, _) in instances where process.isRunning { process.terminate() }
        }
        let bases = instances.map { "http://127.0.0.1:\($0.port)" }
        let families = try await makeFamilies(familyCount, apis: bases.map { API(base: $0, http: http) })
        print("cluster-ops: \(families.count) families, a parent and a child each, through two instances; phases of \(Int(phaseSeconds)) s, a worker stopped \(Int(stoppedSeconds)) s")

        let start = ContinuousClock.now
        let load = ClusterOpsLoad(start: start, bases: bases, http: http, families: families, writeInterval: 2, usageInterval: 4)
        let loading = Task { await load.run() }
        var phases: [Phase] = []
        func phase(_ name: String, _ body: () async throws -> Void) async rethrows {
            let begun = load.offset(.now)
            try await body()
            phases.append(Phase(name: name, start: begun, end: load.offset(.now)))
            print(String(format: "  %@: %.1f s", name, phases.last!.end - begun))
            // Each phase's line as it ends, through the driver's tee (stdout into a pipe is buffered).
            fflush(nil)
        }
        func hold(_ duration: Double) async throws { try await Task.sleep(for: .seconds(duration)) }

        try await phase("before") { try await hold(phaseSeconds) }
        print("  shards per node before: \(try await shardsPerNode(postgres, logger: logger))")
        try await phase("(a) add-worker + rebalance") {
            try await shell("scripts/citus add-worker '\(directory)'")
            try await postgres.query("SELECT citus_rebalance_start()", logger: logger)
            try await postgres.query("SELECT citus_rebalance_wait()", logger: logger)
        }
        print("  shards per node after: \(try await shardsPerNode(postgres, logger: logger))")
        try await phase("after (a)") { try await hold(phaseSeconds) }

        // Each family's node, read before its worker stops.
        let stoppedPort = try await postgres.query(
            "SELECT min(nodeport) FROM pg_dist_node WHERE groupid > 0 AND noderole = 'primary'", logger: logger
        ).decode(Int.self).first { _ in true }!
        var onStopped = Set<Int>()
        for family in families {
            let port = try await postgres.query(
                """
                SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
                WHERE p.shardid = get_shard_id_for_distribution_column('families', \(family.id))
                """,
                logger: logger
            ).decode(Int.self).first { _ in true }!
            if port == stoppedPort { onStopped.insert(family.index) }
        }
        print("  worker1 (127.0.0.1:\(stoppedPort)) holds \(onStopped.count) of \(families.count) families")
        let pgCtl = try PostgresBinaries.find().pgCtl
        let owner = getuid() == 0 ? "runuser -u postgres -- " : ""
        var returned = 0.0
        try await phase("(b) worker1 stopped") {
            try await shell("\(owner)\(pgCtl) stop -D '\(directory)/worker1' -m fast -w -t 60")
            try await hold(stoppedSeconds)
            try await shell("\(owner)\(pgCtl) start -D '\(directory)/worker1' -l '\(directory)/worker1/postgres.log' -w -t 60")
            returned = load.offset(.now)
        }
        try await phase("after (b)") { try await hold(phaseSeconds) }
        load.stop()
        await loading.value

        let ledger = load.snapshot
        try load.write(log: "\(directory)/cluster-ops-requests.tsv")
        ClusterOpsReport(ledger: ledger, phases: phases, onStopped: onStopped, families: families.count).print(returned: returned)
        let lost = try await readBack(ledger.acknowledged, families: families, api: API(base: bases[0], http: http))
        print("acknowledged writes: \(ledger.acknowledged.count); read back, lost: \(lost)")
        print("request log: \(directory)/cluster-ops-requests.tsv")
        try await http.shutdown()
    }

    static func makeFamilies(_ count: Int, apis: [API]) async throws -> [ClusterOpsLoad.Family] {
        try await withThrowingTaskGroup(of: ClusterOpsLoad.Family.self) { group in
            for index in 0..<count {
                group.addTask {
                    let (parentAPI, childAPI) = (index % 2, (index + 1) % 2)
                    let api = apis[parentAPI]
                    let created = try await api.send(
                        .POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Parent \(index)", platform: .ios, timeZone: "UTC")), as: CreateFamilyResponse.self
                    )
                    let invitation = try await api.send(
                        .POST, "/v1/pairings", credential: created.credential, body: CreatePairingRequest(role: .child, childName: "Child \(index)"), as: CreatePairingResponse.self
                    )
                    let accepted = try await apis[childAPI].send(
                        .POST, "/v1/pairings/accept",
                        body: AcceptPairingRequest(qrPayload: invitation.qrPayload, device: .init(name: "Child \(index)", platform: .ipados, timeZone: "UTC")),
                        as: AcceptPairingResponse.self
                    )
                    _ = try await api.send(.POST, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: created.credential, body: Empty(), as: PairingBody.self)
                    return ClusterOpsLoad.Family(
                        index: index, id: created.family.id, parent: created.credential, child: accepted.credential,
                        zone: "child-\(accepted.device.id.lowercased)", parentAPI: parentAPI, childAPI: childAPI
                    )
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.index < $1.index }
        }
    }

    static func shardsPerNode(_ postgres: PostgresClient, logger: Logger) async throws -> String {
        try await postgres.query(
            "SELECT nodeport, count(*)::int FROM citus_shards WHERE colocation_id = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'families'::regclass) AND table_name = 'families'::regclass GROUP BY nodeport ORDER BY nodeport",
            logger: logger
        ).decode((Int, Int).self).reduce(into: [String]()) { $0.append("\($1.0): \($1.1)") }.joined(separator: ", ")
    }

    /// Every acknowledged write read back through the API (the parent reads its child's zone):
    /// how many are missing or carry another change tag.
    static func readBack(_ acknowledged: [(family: Int, name: String, tag: String)], families: [ClusterOpsLoad.Family], api: API) async throws -> Int {
        var lost = 0
        for family in families {
            var stored: [String: String] = [:]
            var token: String?
            while true {
                let page = try await api.get(
                    "/v1/zones/\(family.zone)/changes?limit=1000" + (token.map { "&since=\($0)" } ?? ""), credential: family.parent, as: ZoneChangesResponse.self
                )
                for record in page.records { stored[record.recordName] = record.recordChangeTag }
                token = page.changeToken
                if !page.moreComing { break }
            }
            lost += acknowledged.filter { $0.family == family.index && stored[$0.name] != $0.tag }.count
        }
        return lost
    }

    /// A shell line, run to its end on a thread of its own (the load's tasks go on meanwhile);
    /// a failing line stops the run. Not Foundation's `Process`: its `waitUntilExit` never saw
    /// the end of a line that had started a server, whose shell stayed a zombie.
    static func shell(_ line: String) async throws {
        let status = await withCheckedContinuation { (done: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread { done.resume(returning: system(line + " >/dev/null")) }
        }
        guard status == 0 else { throw BenchFailure("\(line): exit status \(status)") }
    }
}
