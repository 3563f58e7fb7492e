import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Synchronization

/// The parent PIN (PROTOCOL §11), with the server in this process:
/// (a) what one PBKDF2 costs (210,000 rounds), against one SHA-256 of a credential, the hash every
///     request pays, in the same run;
/// (b) whether PBKDF2 holds up other requests: `GET /v1/devices/me` latency alone (the baseline),
///     then while 4 clients check the right PIN back to back (5 checks under way fill the allowance), and the checks' throughput.
enum PINBenchmark {
    static func run(_ arguments: [String]) async throws {
        let window = arguments.count > 0 ? Double(arguments[0]) ?? 10 : 10
        let derivations = 20
        let clock = ContinuousClock()
        var start = clock.now
        for _ in 0..<derivations { _ = try ParentPIN(pin: "4821") }
        let pbkdf2 = seconds(clock.now - start) / Double(derivations)
        start = clock.now
        let credential = "fs1.\(UUID().uuidString).\(UUID().uuidString).\(SecretToken.randomSecret())"
        for _ in 0..<100_000 { _ = SecretToken.hash(credential) }
        let sha = seconds(clock.now - start) / 100_000
        print("FamilySync parent-PIN benchmark")
        print(String(format: "  (a) one PBKDF2-HMAC-SHA256, %d rounds: %.1f ms; one SHA-256 of a credential: %.2f µs; ratio %.0f", ParentPIN.iterations, pbkdf2 * 1000, sha * 1e6, pbkdf2 / sha))

        let server = try await InProcessServer.start()
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(timeout: .init(connect: .seconds(5), read: .seconds(60))))
        do {
            try await measure(server: server, http: http, window: window)
        } catch {
            // Its embedded PostgreSQL must not outlive a failed run.
            try? await http.shutdown()
            try? await server.stop()
            throw error
        }
        try await http.shutdown()
        try await server.stop()
    }

    static func measure(server: InProcessServer, http: HTTPClient, window: Double) async throws {
        let clock = ContinuousClock()
        let anonymous = FamilySyncClient(serverURL: URL(string: server.base)!, httpClient: http)
        let family = try await anonymous.createFamily(.init(name: "PIN parent", platform: .ios, timeZone: "UTC"))
        let parent = anonymous.authenticated(as: family.credential)
        let invitation = try await parent.createPairing(.init(role: .child, childName: "PIN"))
        let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "PIN child", platform: .ios, timeZone: "UTC"))
        _ = try await parent.confirmPairing(invitation.pairing.id)
        let child = anonymous.authenticated(as: accepted.credential)
        guard let member = try await child.me().memberId else { throw BenchFailure("the child has no member") }
        try await parent.setParentPIN("4821", of: member)

        func latencies(for duration: Double) async throws -> [Double] {
            var samples: [Double] = []
            let end = clock.now + .milliseconds(Int(duration * 1000))
            while clock.now < end {
                let sent = clock.now
                _ = try await parent.me()
                samples.append(seconds(clock.now - sent) * 1000)
            }
            return samples.sorted()
        }
        let alone = try await latencies(for: window)
        let load = Load()
        let (loaded, elapsed) = try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    while !load.stop.load(ordering: .relaxed) {
                        guard try await child.verifyParentPIN("4821", of: member) else { throw BenchFailure("the right PIN was refused") }
                        load.checks.add(1, ordering: .relaxed)
                    }
                }
            }
            let began = clock.now
            let samples = try await latencies(for: window)
            let elapsed = seconds(clock.now - began)
            load.stop.store(true, ordering: .relaxed)
            try await group.waitForAll()
            return (samples, elapsed)
        }
        func describe(_ samples: [Double]) -> String {
            String(format: "p50 %.2f ms, p99 %.2f ms (%d requests)", percentile(samples, 0.5), percentile(samples, 0.99), samples.count)
        }
        print("  (b) GET /v1/devices/me alone (baseline): \(describe(alone))")
        print("      while 4 clients check the PIN:       \(describe(loaded))")
        print(String(format: "      PIN checks: %.1f/s on %d cores; ratio of p50 under checks / baseline %.2f", Double(load.checks.load(ordering: .relaxed)) / elapsed,
                     ProcessInfo.processInfo.activeProcessorCount, percentile(loaded, 0.5) / percentile(alone, 0.5)))
    }

    final class Load: Sendable {
        let checks = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
    }
}
