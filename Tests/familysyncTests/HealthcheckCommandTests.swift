import FamilySyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `familysync healthcheck`, as a container's HEALTHCHECK or a Kubernetes probe runs it.
@Suite struct HealthcheckCommandTests {
    @Test func aReadyServerExitsZero() async throws {
        try await withCLISession { session in
            let run = try await session.ok(["healthcheck", "--url", "http://127.0.0.1:\(session.server.port)"])
            #expect(run.stdout.hasPrefix("ready (schema version "))
            // The URL may also come from the environment, as an image sets it once.
            try await session.ok(["healthcheck"], environment: ["FAMILYSYNC_HEALTHCHECK_URL": "http://127.0.0.1:\(session.server.port)"])
            // Or from the port the server of the same environment listens on (an image's HEALTHCHECK).
            try await session.ok(["healthcheck"], environment: ["FAMILYSYNC_PORT": "\(session.server.port)"])
        }
    }

    /// Nothing listening, a listener that never answers, a bad URL: never exit 0.
    @Test func anythingElseFails() async throws {
        try await withCLISession { session in
            let nobody = try freePort()
            let refused = try await session.run(["healthcheck", "--url", "http://127.0.0.1:\(nobody)"])
            #expect(refused.status == 3, "\(refused.stderr)")

            // Accepts connections (the kernel's backlog) and never answers.
            let silent = try PortHolder()
            defer { silent.close() }
            let hung = try await session.run(["healthcheck", "--url", "http://127.0.0.1:\(silent.port)", "--timeout", "1"])
            #expect(hung.status == 3)
            #expect(hung.stderr.contains("did not answer within 1 s"), "\(hung.stderr)")

            let bad = try await session.run(["healthcheck", "--url", "ftp://example"])
            #expect(bad.status == 2)
            let badTimeout = try await session.run(["healthcheck", "--timeout", "0"])
            #expect(badTimeout.status == 2)
            let badPort = try await session.run(["healthcheck"], environment: ["FAMILYSYNC_PORT": "http"])
            #expect(badPort.status == 2)
            #expect(badPort.stderr.contains("FAMILYSYNC_PORT must be a port"), "\(badPort.stderr)")
        }
    }
}
