import Foundation
import Hummingbird

/// A wire type encoded as the server encodes every body (sorted keys, UTF-8).
struct JSONResponse<Value: Encodable & Sendable>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var value: Value

    init(_ value: Value, status: HTTPResponse.Status = .ok) throws {
        self.value = value
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder.wire.encode(value)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
