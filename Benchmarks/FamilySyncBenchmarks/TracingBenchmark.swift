import FamilySyncPostgres
import Foundation
import Hummingbird
import Synchronization

/// What tracing costs (docs/operations.md, "Traces"): the concurrency harness's "nothing new"
/// fetches from `clients` at once, against the server in a process of its own with tracing off
/// and on (every request sampled, spans by OTLP/HTTP to a receiver in this process that counts
/// and drops them), alternating in `rounds`, in the same run: requests a second, latency, and
/// the server's CPU a request.
enum TracingBenchmark {
    static func run(_ arguments: [String]) async throws {
        let duration = arguments.count > 0 ? Int(arguments[0]) ?? 15 : 15
        let clients = arguments.count > 1 ? Int(arguments[1]) ?? 16 : 16
        let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 2 : 2
        let bench = try await SeparateServerBench.start(connections: clients)
        let receiver = Receiver()
        let (collector, port) = try await receiver.start()
        print("FamilySync tracing benchmark: nothing-new fetches, \(clients) clients, \(duration) s a phase, off and on alternating, \(rounds) rounds")
        do {
            var rates: [Bool: [Double]] = [:], cpu: [Bool: [Double]] = [:]
            for round in 1...rounds {
                for traced in [false, true] {
                    let before = receiver.counts()
                    let (server, serverPort) = try BenchServer.launch(databaseURL: bench.url, otlpEndpoint: traced ? "http://127.0.0.1:\(port)" : nil)
                    let api = API(base: "http://127.0.0.1:\(serverPort)", http: bench.client)
                    let start = try ProcessSample(pid: server.processIdentifier)
                    let figures = try await ConcurrencyBenchmark.nothingNew(api: api, clients: clients, seconds: duration)
                    let end = try ProcessSample(pid: server.processIdentifier)
                    let requests = figures.rate * Double(duration)
                    // The last batch leaves as the server stops (the exporter stops after it).
                    server.terminate()
                    server.waitUntilExit()
                    try await Task.sleep(for: .milliseconds(500))
                    let after = receiver.counts()
                    let microseconds = (end.cpuSeconds - start.cpuSeconds) / requests * 1e6
                    rates[traced, default: []].append(figures.rate)
                    cpu[traced, default: []].append(microseconds)
                    print(String(
                        format: "  round %d, tracing %@:  %.0f req/s, p50 %.2f ms, p99 %.2f ms, %.0f µs of server CPU a request%@", round, traced ? "on " : "off",
                        figures.rate, figures.p50 * 1000, figures.p99 * 1000, microseconds,
                        traced ? String(format: ";  %d exports, %.1f MB received", after.exports - before.exports, Double(after.bytes - before.bytes) / 1e6) : ""
                    ))
                }
            }
            func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(1, values.count)) }
            print(String(
                format: "  on / off: throughput %.2f, server CPU a request %.2f", mean(rates[true] ?? []) / mean(rates[false] ?? [1]), mean(cpu[true] ?? []) / mean(cpu[false] ?? [1])
            ))
        } catch {
            print("benchmark failed: \(error)")
        }
        collector.cancel()
        try await bench.stop()
    }

    /// An OTLP/HTTP receiver that counts what it is sent and keeps nothing.
    final class Receiver: Sendable {
        private let received = Mutex<(exports: Int, bytes: Int)>((0, 0))

        func counts() -> (exports: Int, bytes: Int) { received.withLock { $0 } }

        func start() async throws -> (Task<Void, any Error>, Int) {
            let router = Router()
            router.post("/v1/traces") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 64 << 20)
                self.received.withLock { $0 = ($0.exports + 1, $0.bytes + body.readableBytes) }
                return Response(status: .ok, headers: [.contentType: "application/x-protobuf"], body: .init())
            }
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            })
            let task = Task { try await app.runService() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw BenchFailure("the receiver did not start") }
            return (task, port)
        }
    }
}
