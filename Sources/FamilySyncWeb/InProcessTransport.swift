import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The SDK's requests answered by the API's own routes in this process, middleware and all: the
/// dashboard uses the endpoints and access rules of every other client, without a socket. The
/// context is the browser's request's (its address, its request id), with no device: the
/// request's own `Authorization` decides that.
struct InProcessTransport: HTTPTransport {
    /// The API's routes: the server's router, set once it is built.
    let api: APIResponder
    let context: FamilySyncRequestContext

    func exchange(_ request: TransportRequest) async throws(TransportFailure) -> TransportResponse {
        guard let responder = api.get() else { throw TransportFailure(.nothingSent, "the API's routes are not built yet") }
        guard let method = HTTPRequest.Method(request.method),
            let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        else { throw TransportFailure(.nothingSent, "not a request: \(request.method) \(request.url)") }
        var fields = HTTPFields()
        // Nothing to gain from compressing within one process.
        for (name, value) in request.headers where name.lowercased() != "accept-encoding" {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let body = request.body.map { ByteBuffer(bytes: $0) } ?? ByteBuffer()
        fields[.contentLength] = String(body.readableBytes)
        let path = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let head = HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path, headerFields: fields)
        var context = context
        context.device = nil
        context.inProcess = true
        do {
            let response = try await responder.respond(to: Request(head: head, body: RequestBody(buffer: body)), context: context)
            let collected = CollectedBody()
            try await response.body.write(collected)
            var headers: [String: String] = [:]
            for field in response.headers { headers[field.name.canonicalName] = field.value }
            return TransportResponse(status: response.status.code, headers: headers, body: Data(collected.bytes.withLock { $0.readableBytesView }))
        } catch {
            throw TransportFailure(.noAnswer, "\(error)")
        }
    }
}

extension InProcessTransport {
    /// `GET path` as the device `credential`, its answer passed on as the API wrote it, body
    /// streamed (an export, §15.2); a refusal is thrown as the API's error, for the page.
    func stream(_ path: String, credential: String) async throws -> Response {
        guard let responder = api.get() else { throw FamilySyncError.unavailable("The API's routes are not built yet.") }
        let head = HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: path, headerFields: [.authorization: "Bearer \(credential)"])
        var context = context
        context.device = nil
        let response = try await responder.respond(to: Request(head: head, body: RequestBody(buffer: ByteBuffer())), context: context)
        guard response.status == .ok else {
            let collected = CollectedBody()
            try await response.body.write(collected)
            let body = Data(collected.bytes.withLock { $0.readableBytesView })
            throw (try? WireCoding.makeDecoder().decode(ErrorResponse.self, from: body))?.familySyncError ?? FamilySyncError(.internalError, "The export failed.")
        }
        return response
    }
}

/// A response body, written into memory.
private final class CollectedBody: ResponseBodyWriter, Sendable {
    let bytes = Mutex(ByteBuffer())

    func write(_ buffer: ByteBuffer) async throws {
        bytes.withLock { $0.writeImmutableBuffer(buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
