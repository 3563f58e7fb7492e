import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// A server over a fresh database with a manual clock, and a JSON client for it.
struct TestServer {
    let postgres: PostgresClient
    let clock: ManualClock
    let client: any TestClientProtocol

    struct Reply {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer

        func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try WireCoding.makeDecoder().decode(Value.self, from: Data(body.readableBytesView))
        }

        /// The §1.1 body's code, or "" when the body is not one.
        var errorCode: String {
            (try? decode(ErrorResponse.self).error.code) ?? ""
        }

        var error: ErrorResponse.Body? { try? decode(ErrorResponse.self).error }
    }

    func send(_ method: HTTPRequest.Method, _ uri: String, credential: String? = nil, json: String? = nil) async throws -> Reply {
        var headers: HTTPFields = [:]
        if let credential { headers[.authorization] = "Bearer \(credential)" }
        if json != nil { headers[.contentType] = "application/json" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { response in
            Reply(status: response.status, headers: response.headers, body: response.body)
        }
    }

    func send<Body: Encodable>(_ method: HTTPRequest.Method, _ uri: String, credential: String? = nil, body: Body) async throws -> Reply {
        let data = try WireCoding.makeEncoder().encode(body)
        return try await send(method, uri, credential: credential, json: String(decoding: data, as: UTF8.self))
    }

    func fingerprint() async throws -> [String: String] {
        try await databaseFingerprint(postgres)
    }
}

func withTestServer<Result: Sendable>(
    configuration: ServerConfiguration = ServerConfiguration(port: 0, unauthenticatedRateLimit: RateLimit(burst: 100_000, perMinute: 100_000)),
    _ body: @Sendable (TestServer) async throws -> Result
) async throws -> Result {
    let url = try await TestPostgres.shared.makeDatabase()
    var postgresConfiguration = url.clientConfiguration()
    postgresConfiguration.options.maximumConnections = 4
    let postgres = PostgresClient(configuration: postgresConfiguration, backgroundLogger: testLogger)
    let clock = ManualClock()
    let app = buildApplication(configuration: configuration, postgres: postgres, metricsRegistry: testMetricsRegistry, clock: clock, logger: testLogger)
    return try await app.test(.router) { client in
        try await body(TestServer(postgres: postgres, clock: clock, client: client))
    }
}
