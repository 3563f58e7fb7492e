@testable import FamilySyncApp
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

@Suite struct HealthAndMetricsTests {
    @Test func liveAndReadyAnswer200WhenMigrated() async throws {
        try await withTestApplication { app in
            try await app.test(.router) { client in
                try await client.execute(uri: "/health/live", method: .get) { response in
                    #expect(response.status == .ok)
                    let status = try JSONDecoder().decode(ProbeStatus.self, from: Data(response.body.readableBytesView))
                    #expect(status == ProbeStatus(status: "live"))
                }
                // A probe is asked again: its deadline (2 s) includes the pool's first connection,
                // which a machine busy with the suite's hundreds of databases has taken longer to
                // open (503 "did not answer in time", in a full run beside a busy core).
                var ready = false
                for _ in 0..<30 {
                    ready = try await client.execute(uri: "/health/ready", method: .get) { response in
                        guard response.status == .ok else { return false }
                        let status = try JSONDecoder().decode(ProbeStatus.self, from: Data(response.body.readableBytesView))
                        #expect(status == ProbeStatus(status: "ready", schemaVersion: Migration.all.last!.version))
                        return true
                    }
                    if ready { break }
                    try await Task.sleep(for: .milliseconds(500))
                }
                #expect(ready, "/health/ready never answered 200")
            }
        }
    }

    /// The server starts migrations itself: a fresh, empty database is ready once it listens.
    @Test func startMigratesAnEmptyDatabase() async throws {
        let url = try await TestPostgres.shared.makeDatabase(migrated: false)
        let pool = try url.servingPool(connections: 4, logger: testLogger)
        let app = buildApplication(
            configuration: .init(port: 0),
            dependencies: ServerDependencies(pool: pool, listener: try url.connectionConfiguration(), metricsRegistry: testMetricsRegistry, logger: testLogger)
        )
        try await app.test(.router) { client in
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test func readyIs503WithRetryAfterWhenTheDatabaseIsDown() async throws {
        let nowhere = DatabaseURL(endpoint: .unixSocket(path: "/tmp/familysync-no-such-db/.s.PGSQL.5432"), username: "x", password: nil, database: "x", tlsMode: .disable)
        try await withTestApplication(databaseURL: nowhere) { app in
            try await app.test(.router) { client in
                try await client.execute(uri: "/health/ready", method: .get) { response in
                    #expect(response.status == .serviceUnavailable)
                    #expect(response.headers[.retryAfter] == "2")
                    let body = try JSONDecoder().decode(ErrorResponse.self, from: Data(response.body.readableBytesView)).error
                    #expect(body.code == "TRY_AGAIN_LATER")
                    #expect(body.retryAfter == 2)
                }
                // Liveness does not depend on the database.
                try await client.execute(uri: "/health/live", method: .get) { response in
                    #expect(response.status == .ok)
                }
            }
        }
    }

    /// PROTOCOL §1.1: a request that needs a database that is down is answered 503 with
    /// Retry-After within five seconds. PostgresNIO's pool would hold it until its circuit breaker
    /// tripped, a minute later, and then answer 500.
    @Test func requestsThatNeedTheDatabaseAre503WhenItIsDown() async throws {
        let nowhere = DatabaseURL(endpoint: .unixSocket(path: "/tmp/familysync-no-such-db/.s.PGSQL.5432"), username: "x", password: nil, database: "x", tlsMode: .disable)
        try await withTestApplication(databaseURL: nowhere) { app in
            try await app.test(.router) { client in
                let family = #"{"device":{"name":"Phone","platform":"ios","timeZone":"UTC"}}"#
                let credential = DeviceCredential.generate(familyID: UUID(), deviceID: UUID()).token
                let requests: [(String, HTTPRequest.Method, HTTPFields, String?)] = [
                    ("/v1/families", .post, [:], family),
                    ("/v1/devices", .get, [.authorization: "Bearer \(credential)"], nil),
                    ("/v1/poll?timeout=1", .get, [.authorization: "Bearer \(credential)"], nil),
                ]
                for (uri, method, headers, body) in requests {
                    // The pool alone would hold each request a minute (until its circuit breaker
                    // trips); the server promises five seconds.
                    let response = try await failingIfHung(after: .seconds(20), "\(method) \(uri)") {
                        try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
                    }
                    #expect(response.status == .serviceUnavailable, "\(method) \(uri): \(String(buffer: response.body))")
                    #expect(response.headers[.retryAfter] == "2")
                    let error = try JSONDecoder().decode(ErrorResponse.self, from: Data(response.body.readableBytesView)).error
                    #expect(error.code == "TRY_AGAIN_LATER")
                }
            }
        }
    }

    @Test func metricsCountRequestsAndTimeThemByRouteAndStatus() async throws {
        try await withTestApplication { app in
            try await app.test(.router) { client in
                for _ in 0..<3 {
                    try await client.execute(uri: "/health/live", method: .get) { _ in }
                }
                try await client.execute(uri: "/health/live", method: .delete) { _ in }
                try await client.execute(uri: "/metrics", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                    let text = String(buffer: response.body)
                    let live = #"http_route="/health/live",http_request_method="GET",http_response_status_code="200""#
                    let counter = text.split(separator: "\n").first { $0.hasPrefix("hb_requests{\(live)}") }
                    #expect(counter.flatMap { Int($0.split(separator: " ").last ?? "") }.map { $0 >= 3 } == true)
                    #expect(text.contains("http_server_request_duration_bucket{\(live),le=\"0.005\"}"))
                    #expect(text.contains(#"http_route="/health/live",http_request_method="DELETE",http_response_status_code="405""#))
                }
            }
        }
    }
}
