import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import Testing

/// Every failure leaves as PROTOCOL §1.1's JSON with the right status, and carries X-Request-Id.
@Suite struct ErrorResponseTests {
    struct Greeting: Codable, WireRequestBody {
        var name: String
        var age: Int
    }

    struct Boom: Error {
        var secret = "stack frame 0x1234 in handler"
    }

    /// Routes that reach the shared machinery the way later endpoints will.
    static func probeRoutes(_ router: Router<FamilySyncRequestContext>, _ database: Database) {
        router.post("/test/json") { request, context in
            let greeting = try await request.decode(as: Greeting.self, context: context)
            return "\(greeting.name) \(greeting.age)"
        }
        router.get("/test/boom") { _, _ -> String in throw Boom() }
        router.get("/test/sql") { _, context -> String in
            // A real database error, whose SQL and message must not reach the client.
            try await database.rows("SELECT stack_secret FROM no_such_table", logger: context.logger)
            return "unreachable"
        }
    }

    /// The §1.1 body; records a failure (and returns a placeholder) when the response is not one.
    static func errorBody(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) -> ErrorResponse.Body {
        #expect(response.headers[.contentType] == "application/json; charset=utf-8", sourceLocation: sourceLocation)
        #expect(response.headers[RequestIDMiddleware.headerName] != nil, sourceLocation: sourceLocation)
        let decoded = try? JSONDecoder().decode(ErrorResponse.self, from: Data(response.body.readableBytesView))
        #expect(decoded != nil, "not a §1.1 body: \(String(buffer: response.body))", sourceLocation: sourceLocation)
        return decoded?.error ?? .init(code: "<not an error body>", reason: "")
    }

    @Test func unknownRouteIs404JSON() async throws {
        try await withTestApplication { app in
            try await app.test(.router) { client in
                try await client.execute(uri: "/v1/nowhere", method: .post, body: ByteBuffer(string: "{")) { response in
                    #expect(response.status == .notFound)
                    let body = Self.errorBody(response)
                    #expect(body.code == "NOT_FOUND")
                    #expect(body.reason == "No resource at POST /v1/nowhere.")
                }
            }
        }
    }

    @Test func wrongMethodIs405JSONWithAllow() async throws {
        try await withTestApplication { app in
            try await app.test(.router) { client in
                for method in [HTTPRequest.Method.post, .put, .patch, .delete, .trace, HTTPRequest.Method("QUERY")!] {
                    try await client.execute(uri: "/health/live", method: method) { response in
                        #expect(response.status == .methodNotAllowed)
                        #expect(response.headers[.allow] == "GET")
                        #expect(Self.errorBody(response).code == "METHOD_NOT_ALLOWED")
                    }
                }
                // A parameter path: the literal route wins, as in the router.
                try await client.execute(uri: "/v1/devices/me", method: .delete) { response in
                    #expect(response.status == .methodNotAllowed)
                    #expect(response.headers[.allow] == "GET, PATCH")
                }
                try await client.execute(uri: "/v1/devices/\(UUID())", method: .get) { response in
                    #expect(response.headers[.allow] == "PATCH, DELETE", "\(response.status) \(String(buffer: response.body))")
                }
            }
        }
    }

    @Test func malformedJSONIs400() async throws {
        try await withTestApplication(extraRoutes: Self.probeRoutes) { app in
            try await app.test(.router) { client in
                try await client.execute(uri: "/test/json", method: .post, body: ByteBuffer(string: "{")) { response in
                    #expect(response.status == .badRequest)
                    let body = Self.errorBody(response)
                    #expect(body.code == "BAD_REQUEST")
                    #expect(body.reason == "The body is not valid JSON.")
                }
                try await client.execute(uri: "/test/json", method: .post, body: ByteBuffer(string: #"{"name":"Jo","age":"ten"}"#)) { response in
                    #expect(response.status == .badRequest)
                    #expect(Self.errorBody(response).field == "age")
                }
                try await client.execute(uri: "/test/json", method: .post, body: ByteBuffer(string: #"{"name":"Jo"}"#)) { response in
                    #expect(response.status == .badRequest)
                    let body = Self.errorBody(response)
                    #expect(body.field == "age")
                    #expect(body.reason == "The member 'age' is required.")
                }
                try await client.execute(uri: "/test/json", method: .post, body: ByteBuffer(string: #"{"name":"Jo","age":10}"#)) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "Jo 10")
                }
            }
        }
    }

    @Test func bodyOverTheLimitIs413BeforeItIsRead() async throws {
        try await withTestApplication(limits: Limits(maxBodyBytes: 2048), extraRoutes: Self.probeRoutes) { app in
            try await app.test(.router) { client in
                // Declared too large: refused on the header alone, on any path.
                for uri in ["/test/json", "/v1/nowhere", "/health/live"] {
                    try await client.execute(uri: uri, method: .post, body: ByteBuffer(repeating: 0x20, count: 4096)) { response in
                        #expect(response.status == .contentTooLarge)
                        let body = Self.errorBody(response)
                        #expect(body.code == "LIMIT_EXCEEDED")
                        #expect(body.reason == "The request body is 4096 bytes; the limit is 2048.")
                    }
                }
                // Streamed without a length: refused when collection passes the limit.
                try await client.execute(
                    uri: "/test/json", method: .post, headers: [.transferEncoding: "chunked"],
                    body: ByteBuffer(repeating: 0x20, count: 4096)
                ) { response in
                    #expect(response.status == .contentTooLarge)
                    #expect(Self.errorBody(response).code == "LIMIT_EXCEEDED")
                }
            }
        }
    }

    /// On a real connection a chunked body streams in; passing the limit while it does is 413,
    /// on a route that decodes JSON and on a route that needs no body.
    @Test func chunkedBodyOverTheLimitIs413OnALiveServer() async throws {
        try await withTestApplication(limits: Limits(maxBodyBytes: 2048), extraRoutes: Self.probeRoutes) { app in
            try await app.test(.live) { client in
                let port = try #require(client.port)
                let chunk = String(repeating: " ", count: 1024)
                let chunks = String(repeating: "400\r\n\(chunk)\r\n", count: 5) + "0\r\n\r\n"
                let answer = try await rawExchange(
                    port: port,
                    request: "POST /test/json HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n" + chunks
                )
                #expect(answer.hasPrefix("HTTP/1.1 413"), "answer: \(answer)")
                #expect(answer.contains(#""code":"LIMIT_EXCEEDED""#))
                #expect(answer.contains("the limit of 2048 bytes"))
                // Within the limit, the same framing is read and decoded.
                let small = #"{"name":"Jo","age":10}"#
                let fine = try await rawExchange(
                    port: port,
                    request: "POST /test/json HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                        + String(small.utf8.count, radix: 16) + "\r\n" + small + "\r\n0\r\n\r\n"
                )
                #expect(fine.hasPrefix("HTTP/1.1 200"), "answer: \(fine)")
                #expect(fine.hasSuffix("Jo 10"))
            }
        }
    }

    @Test func unexpectedErrorsAre500WithoutInternals() async throws {
        try await withTestApplication(extraRoutes: Self.probeRoutes) { app in
            try await app.test(.router) { client in
                for uri in ["/test/boom", "/test/sql"] {
                    try await client.execute(uri: uri, method: .get) { response in
                        #expect(response.status == .internalServerError)
                        let body = Self.errorBody(response)
                        #expect(body.code == "INTERNAL_ERROR")
                        #expect(body.reason == "An internal error occurred.")
                        #expect(!String(buffer: response.body).contains("stack"))
                        #expect(!String(buffer: response.body).contains("no_such_table"))
                    }
                }
            }
        }
    }

    @Test func requestIDIsEchoedOrMade() async throws {
        try await withTestApplication { app in
            try await app.test(.router) { client in
                try await client.execute(uri: "/health/live", method: .get, headers: [RequestIDMiddleware.headerName: "client-42"]) { response in
                    #expect(response.headers[RequestIDMiddleware.headerName] == "client-42")
                }
                var made: [String] = []
                for _ in 0..<2 {
                    try await client.execute(uri: "/nowhere", method: .get) { response in
                        let id = response.headers[RequestIDMiddleware.headerName] ?? ""
                        #expect(id.wholeMatch(of: /[0-9a-f]{32}/) != nil)
                        made.append(id)
                    }
                }
                // Each request its own.
                #expect(made[0] != made[1])
                // Too long to be an id: replaced rather than echoed.
                let long = String(repeating: "x", count: 200)
                try await client.execute(uri: "/health/live", method: .get, headers: [RequestIDMiddleware.headerName: long]) { response in
                    #expect(response.headers[RequestIDMiddleware.headerName]?.count == 32)
                }
            }
        }
    }

    @Test func everyCodeMapsToItsStatus() {
        let expected: [FamilySyncError.Code: Int] = [
            .badRequest: 400, .badChangeToken: 400, .authenticationRequired: 401, .accessDenied: 403,
            .notFound: 404, .zoneNotFound: 404, .methodNotAllowed: 405, .conflict: 409, .exists: 409,
            .changeTokenExpired: 410, .pairingExpired: 410, .requestTimeout: 408, .limitExceeded: 413, .idempotencyKeyReused: 422, .throttled: 429,
            .tryAgainLater: 503, .internalError: 500,
        ]
        for code in FamilySyncError.Code.allCases {
            #expect(code.httpStatus.code == expected[code], "\(code)")
        }
    }

    @Test func retryAfterIsAHeaderAndAMember() throws {
        let response = FamilySyncError(.throttled, "Slow down.", retryAfter: 7).response()
        #expect(response.status == .tooManyRequests)
        #expect(response.headers[.retryAfter] == "7")
    }
}
