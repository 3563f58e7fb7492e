import AsyncHTTPClient
import CompressNIO
import FamilySyncClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The SDK over AsyncHTTPClient, counting what crosses the wire each way: the request line,
/// headers (those the SDK sets, and the `Host` and `Content-Length` AsyncHTTPClient adds) and body
/// as sent; the status line, headers and body as received, before any gzip is undone. `gzip:
/// false` leaves `Accept-Encoding` out, for the same traffic uncompressed.
final class CountingTransport: HTTPTransport, Sendable {
    struct Totals {
        var requests = 0
        var sent = 0
        var received = 0
    }

    let client: HTTPClient
    let gzip: Bool
    private let totals = Mutex(Totals())

    init(client: HTTPClient, gzip: Bool) {
        self.client = client
        self.gzip = gzip
    }

    var snapshot: Totals { totals.withLock { $0 } }

    func exchange(_ request: TransportRequest) async throws(TransportFailure) -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        var sent = "\(request.method) \(request.url.path)\(request.url.query.map { "?" + $0 } ?? "") HTTP/1.1\r\n".utf8.count
        sent += "host: \(request.url.host ?? ""):\(request.url.port ?? 80)\r\n".utf8.count
        for (name, value) in request.headers where gzip || name.lowercased() != "accept-encoding" {
            outgoing.headers.add(name: name, value: value)
            sent += name.utf8.count + value.utf8.count + 4
        }
        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
            sent += body.count + "content-length: \(body.count)\r\n".utf8.count
        }
        sent += 2
        do {
            let response = try await client.execute(outgoing, timeout: .nanoseconds(Int64(request.timeout / .nanoseconds(1))))
            var received = "HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\r\n".utf8.count + 2
            var headers: [String: String] = [:]
            for (name, value) in response.headers {
                received += name.utf8.count + value.utf8.count + 4
                if headers[name.lowercased()] == nil { headers[name.lowercased()] = value }
            }
            var body = try await response.body.collect(upTo: 64 << 20)
            received += body.readableBytes
            if headers["content-encoding"]?.lowercased() == "gzip", body.readableBytesView.starts(with: [0x1f, 0x8b]) {
                body = try body.decompress(with: .gzip(), maxSize: 64 << 20)
            }
            totals.withLock {
                $0.requests += 1
                $0.sent += sent
                $0.received += received
            }
            return TransportResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
        } catch {
            throw TransportFailure(.noAnswer, "\(error)")
        }
    }
}
