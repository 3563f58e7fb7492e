import AsyncHTTPClient
import FamilySyncClientNIO
import FamilySyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `familysync serve`'s text log (`TextLogHandler`): swift-log's `StreamLogHandler` lines, with
/// the request's logger metadata (Hummingbird's `hb.request.id`), the provider's (`request_id`)
/// and the line's own, in `StreamLogHandler`'s order, though the handler renders them only when a
/// line is written.
@Suite(.timeLimit(.minutes(3))) struct TextLogTests {
    @Test func aRequestsLineCarriesItsLoggersTheProvidersAndItsOwnMetadata() async throws {
        try await withTemporaryDirectory { directory in
            let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
            let port = try freePort()
            let server = try await ServerProcess.start(
                ["serve", "--port", "\(port)", "--log-level", "debug"],
                port: port, environment: ["DATABASE_URL": database.connectionString], workingDirectory: directory
            )
            defer { server.signal(SIGKILL) }
            try await server.waitUntilReady()
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/nowhere")
            request.headers.add(name: "X-Request-Id", value: "text-log-42")
            let response = try await AsyncHTTPClientTransport.sharedHTTPClient.execute(request, timeout: .seconds(30))
            #expect(response.status == .notFound)
            _ = try await response.body.collect(upTo: 1 << 20)

            let deadline = ContinuousClock.now + .seconds(20)
            var line: String?
            while line == nil, ContinuousClock.now < deadline {
                line = server.stderr.split(separator: "\n").map(String.init).first { $0.contains("request_id=text-log-42") && $0.hasSuffix(" Request") }
                if line == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            let found = try #require(line, "no line of the request in:\n\(server.stderr)")
            // `StreamLogHandler`'s form, the keys sorted: the logger's (`hb.request.id`), the
            // line's own (method and path), the provider's (`request_id`); then source and message.
            let form = /\S+ debug familysync: hb\.request\.id=[0-9a-f]+ hb\.request\.method=GET hb\.request\.path=\/v1\/nowhere request_id=text-log-42 \[Hummingbird\] Request/
            #expect(found.wholeMatch(of: form) != nil, "\(found)")
        }
    }
}
