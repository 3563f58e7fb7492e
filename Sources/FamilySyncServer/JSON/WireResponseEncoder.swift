import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Hummingbird
import NIOCore

/// The request context's encoder: every body as the server writes JSON (sorted keys, RFC 3339
/// instants to the millisecond, UTF-8).
public struct WireResponseEncoder: ResponseEncoder {
    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        // The hot paths' answers, written straight into the buffer.
        if let direct = value as? any WireJSONWritable { return Self.response(direct) }
        let data = try JSONEncoder.wire.encode(value)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A 200 whose body `value` writes itself (`WireJSONWritable`).
    static func response(_ value: some WireJSONWritable) -> Response {
        var writer = WireJSONWriter(capacity: value.estimatedBytes)
        value.write(to: &writer)
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: writer.buffer))
    }
}
