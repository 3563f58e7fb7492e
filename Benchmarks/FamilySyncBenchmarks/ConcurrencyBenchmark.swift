import AsyncHTTPClient
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The server under `connections` clients at once, in a process of its own, against PostgreSQL's
/// own read path in the same run: `pgbench -S -M prepared` (one indexed SELECT a transaction) with
/// as many clients, on the same cluster. Then "nothing new" zone fetches, and usage uploads from
/// that many children at once (each its own device, a 100-session batch a request).
enum ConcurrencyBenchmark {
    static func run(_ arguments: [String]) async throws {
        let duration = arguments.count > 0 ? Int(arguments[0]) ?? 20 : 20
        let connections = arguments.count > 1 ? Int(arguments[1]) ?? 16 : 16
        let bench = try await SeparateServerBench.start(connections: connections)
        print("FamilySync concurrency benchmark: \(connections) clients at once, \(duration) s a phase, server in its own process")
        do {
            let tps = try pgbenchSelectOnly(url: bench.url, clients: connections, seconds: duration)
            print(String(format: "  baseline pgbench -S -M prepared, %d clients:  %.0f TPS", connections, tps))
            let (server, port) = try BenchServer.launch(databaseURL: bench.url)
            defer {
                server.terminate()
                server.waitUntilExit()
            }
            let api = API(base: "http://127.0.0.1:\(port)", http: bench.client)
            let nothingNew = try await nothingNew(api: api, clients: connections, seconds: duration)
            print(String(format: "  nothing new, %d clients:  %.0f req/s, p50 %.2f ms, p99 %.2f ms;  %.1f %% of pgbench's TPS",
                         connections, nothingNew.rate, nothingNew.p50 * 1000, nothingNew.p99 * 1000, nothingNew.rate / tps * 100))
            let uploads = try await uploads(api: api, children: connections, seconds: duration)
            print(String(format: "  usage uploads from %d children:  %.0f records/s (%.0f requests/s of 100), p50 %.2f ms, p99 %.2f ms",
                         connections, uploads.rate * 100, uploads.rate, uploads.p50 * 1000, uploads.p99 * 1000))
        } catch {
            print("benchmark failed: \(error)")
        }
        try await bench.stop()
    }

    struct Figures {
        var rate: Double
        var p50: Double
        var p99: Double
    }

    /// `pgbench -i` then `pgbench -S -M prepared` on a database of its own in the same cluster.
    static func pgbenchSelectOnly(url: DatabaseURL, clients: Int, seconds: Int) throws -> Double {
        guard case .unixSocket(let socket) = url.endpoint else { throw BenchFailure("the embedded database has no socket") }
        let directory = socket.hasSuffix(".s.PGSQL.5432") ? URL(fileURLWithPath: socket).deletingLastPathComponent().path : socket
        let pgbench = try PostgresBinaries.find().directory + "/pgbench"
        let connection = ["-h", directory, "-U", url.username]
        _ = try Shell.run(try PostgresBinaries.find().directory + "/createdb", connection + ["pgbench"])
        _ = try Shell.run(pgbench, ["-i", "-q", "-s", "10"] + connection + ["pgbench"])
        // A count of transactions, not -T: pgbench ends -T on SIGALRM, which a child of this
        // process inherits blocked, and it never ended. About `seconds` at 50,000 TPS.
        let transactions = seconds * 50_000 / clients
        let output = try Shell.run(pgbench, ["-S", "-M", "prepared", "-c", "\(clients)", "-j", "2", "-t", "\(transactions)"] + connection + ["pgbench"])
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
            let value = line.dropFirst(6).split(separator: " ").first.flatMap({ Double($0) })
        else { throw BenchFailure("pgbench printed no tps: \(output)") }
        return value
    }

    /// Each client fetches the family zone's changes with the current token, again and again.
    static func nothingNew(api: API, clients: Int, seconds: Int) async throws -> Figures {
        let (credential, fetch) = try await api.nothingNewFetch()
        return try await load(clients: clients, seconds: seconds) { _ in
            _ = try await api.get(fetch, credential: credential, as: ZoneChangesResponse.self)
        }
    }

    /// `children` paired children, each uploading 100 new sessions a request.
    static func uploads(api: API, children count: Int, seconds: Int) async throws -> Figures {
        let family = try await api.send(
            .POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Parent", platform: .ios, timeZone: "UTC")), as: CreateFamilyResponse.self
        )
        var children: [String] = []
        for index in 0..<count {
            let invitation = try await api.send(
                .POST, "/v1/pairings", credential: family.credential, body: CreatePairingRequest(role: .child, childName: "Child \(index)"), as: CreatePairingResponse.self
            )
            let child = try await api.send(
                .POST, "/v1/pairings/accept",
                body: AcceptPairingRequest(qrPayload: invitation.qrPayload, device: .init(name: "iPad \(index)", platform: .ipados, timeZone: "UTC")),
                as: AcceptPairingResponse.self
            )
            _ = try await api.send(.POST, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: family.credential, body: Empty(), as: PairingBody.self)
            children.append(child.credential)
        }
        let credentials = children
        let yesterday = Calendar(identifier: .gregorian).startOfDay(for: Date()).addingTimeInterval(-86_400)
        return try await load(clients: count, seconds: seconds) { client in
            let records = (0..<100).map { index in
                let start = yesterday.addingTimeInterval(TimeInterval(Int.random(in: 0..<86_000)))
                return UsageRecordBody(
                    recordID: UUID().lowercased, logicalID: "app-\(index % 20)", displayName: "App \(index % 20)", category: index % 2 == 0 ? "learning" : "reward",
                    sessionStart: start, sessionEnd: start.addingTimeInterval(120), totalSeconds: 120, earnedPoints: 2
                )
            }
            let body = ByteBuffer(data: try WireCoding.makeEncoder().encode(UsageUploadRequest(records: records)))
            _ = try await UsageBenchmark.post(body, to: "/v1/usage", credential: credentials[client], api: api, as: UsageUploadResponse.self)
        }
    }

    /// `clients` tasks calling `request` until `seconds` pass: the rate and the latencies.
    static func load(clients: Int, seconds duration: Int, _ request: @escaping @Sendable (Int) async throws -> Void) async throws -> Figures {
        let end = ContinuousClock.now + .seconds(duration)
        let started = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for client in 0..<clients {
                group.addTask {
                    var latencies: [Double] = []
                    while ContinuousClock.now < end {
                        let start = ContinuousClock.now
                        try await request(client)
                        latencies.append(seconds(ContinuousClock.now - start))
                    }
                    return latencies
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }.sorted()
        }
        let elapsed = seconds(ContinuousClock.now - started)
        return Figures(rate: Double(latencies.count) / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99))
    }
}
