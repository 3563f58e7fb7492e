import FamilySyncClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ReliabilitySuites {
    /// docs/operations.md's scale-out on one machine: nginx (deploy/nginx.conf's proxying) in
    /// front of three instances on one PostgreSQL, their pools through PgBouncer in transaction
    /// mode, each instance's LISTEN connection direct. Figures go to the test's output.
    @Suite(.timeLimit(.minutes(3)), .notOnCitus("PgBouncer is set up on the embedded PostgreSQL's socket"))
    struct TopologyTests {
        /// Three `familysync serve` processes, started at once (their migrations take turns).
        static func startInstances(ports: [Int], pooled: DatabaseURL, direct: DatabaseURL, in directory: String) async throws -> [ServerProcess] {
            var instances: [ServerProcess] = []
            for port in ports {
                instances.append(try await startInstance(port: port, pooled: pooled, direct: direct, in: directory))
            }
            for instance in instances { try await instance.waitUntilReady() }
            return instances
        }

        static func startInstance(port: Int, pooled: DatabaseURL, direct: DatabaseURL, in directory: String) async throws -> ServerProcess {
            try await ServerProcess.start(
                [
                    "serve", "--port", "\(port)", "--db-connections", "6", "--prepared-statements", "off",
                    "--listen-database-url", direct.connectionString, "--trusted-proxies", "127.0.0.1",
                ],
                port: port, environment: ["DATABASE_URL": pooled.connectionString], workingDirectory: directory
            )
        }

        static func client(_ port: Int, as credential: String?) -> FamilySyncClient {
            FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, credential: credential)
        }

        @Test func threeInstancesBehindNginxAndPgBouncerActAsOne() async throws {
            try await withTemporaryDirectory { directory in
                chmod(directory, 0o755)
                let direct = try await TestPostgres.shared.makeDatabase()
                try await PgBouncerTests.withPgBouncer(database: direct, in: directory) { pooled in
                    let ports = try (0..<3).map { _ in try freePort() }
                    var instances = try await Self.startInstances(ports: ports, pooled: pooled, direct: direct, in: directory)
                    defer { for instance in instances { instance.signal(SIGKILL) } }
                    let nginx = try await NginxProcess.start(upstreams: ports, in: directory)
                    do {
                        try await Self.exercise(nginx: nginx, ports: ports, instances: &instances, pooled: pooled, direct: direct, in: directory)
                    } catch {
                        await nginx.stop()
                        throw error
                    }
                    await nginx.stop()
                }
            }
        }

        /// The three parts, through the topology `nginx` fronts.
        static func exercise(nginx: NginxProcess, ports: [Int], instances: inout [ServerProcess], pooled: DatabaseURL, direct: DatabaseURL, in directory: String) async throws {
            let front = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(nginx.port)")!)
            // Families paired through nginx: each request may land on another instance.
            var families: [PairedFamily] = []
            for index in 0..<3 { families.append(try await PairedFamily.create(on: front, name: "Family \(index)", children: 2)) }
            let family = families[0]
            try await writesWakePollsOnTheOtherInstances(family, ports: ports, instances: instances)
            try await revocationHoldsOnEveryInstance(family, parentCredential: try #require(family.parent.credential), ports: ports, instances: instances)
            let revoked = family.children[1].id
            try await aRollingRestartUnderLoadFailsNothing(
                writers: families.map { ($0.parent, $0.children[0].zone) }, children: families.flatMap(\.children).filter { $0.id != revoked },
                nginx: nginx, ports: ports, instances: &instances, pooled: pooled, direct: direct, in: directory
            )
        }

        /// A write through the first instance wakes polls held on the second and the third.
        static func writesWakePollsOnTheOtherInstances(_ family: PairedFamily, ports: [Int], instances: [ServerProcess]) async throws {
            let child = family.children[0]
            let childCredential = try #require(child.client.credential)
            let parent = client(ports[0], as: family.parent.credential)
            let held = [client(ports[1], as: childCredential), client(ports[2], as: childCredential)]
            var token = try await held[0].databaseChanges(since: nil).changeToken
            var wakes: [Duration] = []
            var writes: [Duration] = []
            for round in 0..<20 {
                let since = token
                let polls = held.map { poller in
                    Task { () async throws -> (PollResponse, ContinuousClock.Instant) in
                        let answer = try await poller.poll(since: since, timeout: 30)
                        return (answer, .now)
                    }
                }
                try await instances[1].waitForMetric("familysync_polls_active", atLeast: 1)
                try await instances[2].waitForMetric("familysync_polls_active", atLeast: 1)
                let start = ContinuousClock.now
                _ = try await parent.modify(child.zone, .appConfiguration("wake-\(round)"))
                writes.append(.now - start)
                for (index, poll) in polls.enumerated() {
                    let (answer, answeredAt) = try await poll.value
                    #expect(answer.changed && answer.zones == [child.zone], "round \(round), instance \(index + 2)")
                    wakes.append(answeredAt - start)
                    token = answer.changeToken
                }
            }
            // Every instance hands out tokens every other reads (one key, kept in the database).
            #expect(try await client(ports[0], as: childCredential).databaseChanges(since: token).zones.isEmpty)
            print("topology: write on one instance → poll answered on another, 40 polls: p50 \(percentile(wakes, 0.5)), max \(percentile(wakes, 1)); the write alone p50 \(percentile(writes, 0.5))")
        }

        /// A device revoked through one instance is refused by all three, its held polls first.
        static func revocationHoldsOnEveryInstance(_ family: PairedFamily, parentCredential: String, ports: [Int], instances: [ServerProcess]) async throws {
            let child = family.children[1]
            let credential = try #require(child.client.credential)
            let token = try await client(ports[1], as: credential).databaseChanges(since: nil).changeToken
            // Each instance knows the device (its credential cached) and holds a poll of it.
            for port in ports { _ = try await client(port, as: credential).me() }
            let polls = ports.dropFirst().map { port in
                Task { () async -> FamilySyncError? in
                    do {
                        _ = try await client(port, as: credential).poll(since: token, timeout: 30)
                        return nil
                    } catch {
                        return error as? FamilySyncError
                    }
                }
            }
            try await instances[1].waitForMetric("familysync_polls_active", atLeast: 1)
            try await instances[2].waitForMetric("familysync_polls_active", atLeast: 1)
            try await client(ports[0], as: parentCredential).revokeDevice(child.id)
            for (index, poll) in polls.enumerated() {
                #expect(await poll.value?.code == .authenticationRequired, "the held poll on instance \(index + 2)")
            }
            for (index, port) in ports.enumerated() {
                do {
                    _ = try await client(port, as: credential).me()
                    Issue.record("instance \(index + 1) still took the revoked credential")
                } catch {
                    #expect(error.code == .authenticationRequired, "instance \(index + 1)")
                }
            }
        }

        /// Load through nginx while the second instance is taken out, stopped, started again and
        /// put back (deploy/nginx.conf's procedure): not one request fails.
        static func aRollingRestartUnderLoadFailsNothing(
            writers: [(parent: FamilySyncClient, zone: String)], children: [PairedFamily.Child], nginx: NginxProcess, ports: [Int], instances: inout [ServerProcess], pooled: DatabaseURL, direct: DatabaseURL, in directory: String
        ) async throws {
            let failures = MixedLoadTests.Failures()
            let done = StopFlag()
            // However this ends, the load stops with it.
            defer { done.set() }
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for child in children {
                        group.addTask {
                            var token: String?
                            while !done.isSet {
                                _ = await failures.run("upload") {
                                    try await child.client.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: MixedLoadTests.randomSessions(now: Date())))
                                }
                                if let answer = await failures.run("child poll", { try await child.client.poll(since: token, timeout: 1) }) {
                                    token = answer.changeToken
                                }
                            }
                        }
                    }
                    for (parent, zone) in writers {
                        group.addTask {
                            var round = 0
                            while !done.isSet {
                                round += 1
                                _ = await failures.run("parent write") { try await parent.modify(zone, .appConfiguration("load-\(round % 5)")) }
                                _ = await failures.run("parent read") { try await parent.zoneChanges(zone, since: nil) }
                            }
                        }
                    }
                }
            }
            let before = failures.requests.load(ordering: .relaxed)
            try await waitForRequests(failures, past: before + 200)
            // Out of nginx, then stopped: its held polls answer at once, the apps poll elsewhere.
            try await nginx.route(to: ports, down: [ports[1]])
            instances[1].signal(SIGTERM)
            let status = try await instances[1].waitForExit()
            #expect(status.isSuccess, "the instance stopped cleanly: \(instances[1].stderr)")
            let whileDown = failures.requests.load(ordering: .relaxed)
            try await waitForRequests(failures, past: whileDown + 200)
            instances[1] = try await startInstance(port: ports[1], pooled: pooled, direct: direct, in: directory)
            try await instances[1].waitUntilReady()
            try await nginx.route(to: ports, down: [])
            let backAt = nginx.accessLog.count
            try await waitForRequests(failures, past: failures.requests.load(ordering: .relaxed) + 300)
            done.set()
            await load.value

            let log = nginx.accessLog
            let failed = failures.list.withLock { $0 }
            #expect(failed.isEmpty, "\(failed.count) failures: \(failed.prefix(10))")
            #expect(log.filter { $0.status >= 500 }.isEmpty, "nginx answered 5xx: \(log.filter { $0.status >= 500 }.prefix(10))")
            // The restarted instance took its share again.
            #expect(log[backAt...].contains { $0.upstream == "127.0.0.1:\(ports[1])" })
            var byInstance: [String: Int] = [:]
            for entry in log { byInstance[entry.upstream, default: 0] += 1 }
            print("topology: rolling restart under load: \(log.count) requests through nginx, \(log.filter { $0.status >= 500 }.count) 5xx, \(failed.count) client failures; by instance \(ports.map { byInstance["127.0.0.1:\($0)", default: 0] })")
        }

        final class StopFlag: Sendable {
            private let flag = Atomic<Bool>(false)
            var isSet: Bool { flag.load(ordering: .relaxed) }
            func set() { flag.store(true, ordering: .relaxed) }
        }

        static func waitForRequests(_ failures: MixedLoadTests.Failures, past count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while failures.requests.load(ordering: .relaxed) < count {
                guard ContinuousClock.now < deadline else { throw TestFailure("the load stalled at \(failures.requests.load(ordering: .relaxed)) requests") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        static func percentile(_ values: [Duration], _ fraction: Double) -> String {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return "-" }
            let value = sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
            return String(format: "%.2f ms", Double(value.components.attoseconds) / 1e15 + Double(value.components.seconds) * 1000)
        }
    }
}
