import AsyncHTTPClient
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization

/// A real HTTP hop in front of a test server that answers the first `times` requests whose path
/// starts with `path` with `429 THROTTLED` and `Retry-After`, as a rate limiter in front of
/// FamilySync would, and forwards everything else unchanged. The server itself throttles only the
/// unauthenticated endpoints; this lets the SDK meet a 429 on any call.
func withThrottlingProxy<Result: Sendable>(
    to port: Int, path: String, times: Int, retryAfter: Int, _ body: @Sendable (_ port: Int, _ throttled: @Sendable () -> Int) async throws -> Result
) async throws -> Result {
    let remaining = Mutex(times)
    let responder = CallbackResponder<BasicRequestContext> { request, _ in
        let throttle = request.uri.path.hasPrefix(path) && remaining.withLock { count in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if throttle {
            let body = try WireCoding.makeEncoder().encode(ErrorResponse(error: .init(code: "THROTTLED", reason: "Slow down.", retryAfter: retryAfter)))
            return Response(
                status: .tooManyRequests, headers: [.retryAfter: String(retryAfter), .contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(data: body))
            )
        }
        return try await forward(request, to: port)
    }
    let app = Application(responder: responder, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    return try await app.test(.live) { client in
        try await body(client.port!) { times - remaining.withLock { $0 } }
    }
}

/// A hop that forwards every request unchanged and keeps what was asked (method, path, body), for
/// a test that counts a client's requests or looks at what it asked.
func withRecordingProxy<Result: Sendable>(
    to port: Int, _ body: @Sendable (_ port: Int, _ asked: @Sendable () -> [RecordedRequest]) async throws -> Result
) async throws -> Result {
    let asked = Mutex<[RecordedRequest]>([])
    let responder = CallbackResponder<BasicRequestContext> { request, _ in
        let bytes = try await request.body.collect(upTo: 8 << 20)
        asked.withLock {
            $0.append(
                RecordedRequest(method: request.method.rawValue, path: request.uri.path, query: request.uri.query, body: String(buffer: bytes), acceptEncoding: request.headers[.acceptEncoding])
            )
        }
        return try await forward(request, body: bytes, to: port)
    }
    let app = Application(responder: responder, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    return try await app.test(.live) { client in
        try await OpenWaits.during("the steps through a recording proxy", limit: testServerLimit) {
            try await body(client.port!) { asked.withLock { $0 } }
        }
    }
}

struct RecordedRequest: Sendable {
    var method: String
    var path: String
    var query: String?
    var body: String
    var acceptEncoding: String?
}

/// The request as the server answers it; `body`, when the hop has read it already.
private func forward(_ request: Request, body: ByteBuffer? = nil, to port: Int) async throws -> Response {
    var forwarded = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(request.uri.description)")
    forwarded.method = .init(rawValue: request.method.rawValue)
    for field in request.headers { forwarded.headers.add(name: field.name.rawName, value: field.value) }
    if let body {
        forwarded.body = .bytes(body)
    } else {
        forwarded.body = .bytes(try await request.body.collect(upTo: 8 << 20))
    }
    let answer = try await TestServer.http.execute(forwarded, timeout: .seconds(90))
    var headers = HTTPFields()
    for (name, value) in answer.headers { if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) } }
    return Response(status: .init(code: Int(answer.status.code)), headers: headers, body: .init(byteBuffer: try await answer.body.collect(upTo: 64 << 20)))
}

/// A hop whose long polls never answer, as for an app iOS suspended: the connection is dead and
/// only a push can tell it something changed. Other requests are forwarded; `held` counts the polls
/// it holds now (one ends when its client lets go of it).
func withStalledPolls<Result: Sendable>(to port: Int, _ body: @Sendable (_ port: Int, _ held: @Sendable () -> Int) async throws -> Result) async throws -> Result {
    let held = Mutex(0)
    let responder = CallbackResponder<BasicRequestContext> { request, _ in
        guard request.uri.path.hasPrefix("/v1/poll") else { return try await forward(request, to: port) }
        held.withLock { $0 += 1 }
        defer { held.withLock { $0 -= 1 } }
        try await request.body.consumeWithCancellationOnInboundClose { _ in try await Task.sleep(for: .seconds(3600)) }
        return Response(status: .noContent)
    }
    let app = Application(responder: responder, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    return try await app.test(.live) { client in
        try await body(client.port!) { held.withLock { $0 } }
    }
}
