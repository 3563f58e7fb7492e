import AsyncHTTPClient
import CompressNIO
import FamilySyncClient
import Foundation
import NIOCore
import NIOHTTP1
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SDK over AsyncHTTPClient (SwiftNIO): for servers, the CLI and the tests' harnesses.
public struct AsyncHTTPClientTransport: HTTPTransport {
    public let client: HTTPClient

    /// The HTTP client every `AsyncHTTPClientTransport` shares unless given another. Unlike
    /// `HTTPClient.shared`, it does not retry a refused connection until the request's deadline
    /// (75 s, for the long poll): a server that is down is reported at once, and the SDK's own
    /// backoff (`UsageUploadQueue`, `SyncEngine`) decides when to try again.
    public static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public static let shared = AsyncHTTPClientTransport(client: sharedHTTPClient)

    public init(client: HTTPClient) {
        self.client = client
    }

    public func exchange(_ request: TransportRequest) async throws(TransportFailure) -> TransportResponse {
        do {
            return try await send(request)
        } catch {
            throw TransportFailure(Self.kind(of: error), "\(error)")
        }
    }

    /// `exchange` with the client's own errors.
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(outgoing, timeout: .nanoseconds(Int64(request.timeout / .nanoseconds(1))))
        var headers: [String: String] = [:]
        for (name, value) in response.headers where headers[name.lowercased()] == nil { headers[name.lowercased()] = value }
        let body = try Self.decoded(try await response.body.collect(upTo: 64 << 20), encoding: headers["content-encoding"])
        return TransportResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
    }

    /// A 2xx answer's body written to `file` as it arrives: memory holds one chunk, whatever the
    /// archive's size.
    public func download(_ request: TransportRequest, to file: URL) async throws(TransportFailure) -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers where name.lowercased() != "accept-encoding" { outgoing.headers.add(name: name, value: value) }
        do {
            let response = try await client.execute(outgoing, timeout: .nanoseconds(Int64(request.timeout / .nanoseconds(1))))
            var headers: [String: String] = [:]
            for (name, value) in response.headers where headers[name.lowercased()] == nil { headers[name.lowercased()] = value }
            guard (200..<300).contains(Int(response.status.code)) else {
                let body = try Self.decoded(try await response.body.collect(upTo: 64 << 20), encoding: headers["content-encoding"])
                return TransportResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
            }
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw TransportFailure(.noAnswer, "\(file.path) could not be created")
            }
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            for try await chunk in response.body { try handle.write(contentsOf: Data(chunk.readableBytesView)) }
            return TransportResponse(status: Int(response.status.code), headers: headers, body: Data())
        } catch let failure as TransportFailure {
            throw failure
        } catch {
            throw TransportFailure(Self.kind(of: error), "\(error)")
        }
    }

    /// What a failure of AsyncHTTPClient says of the request: a write on a channel already closed
    /// never left; a connection closed or reset may have carried it.
    static func kind(of error: any Error) -> TransportFailure.Kind {
        if let error = error as? ChannelError, error == .ioOnClosedChannel { return .nothingSent }
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return .noAnswer }
        if let error = error as? IOError, error.errnoCode == ECONNRESET || error.errnoCode == EPIPE { return .noAnswer }
        return .unreachable
    }

    /// The body as sent, gzip undone; at most 64 MiB either way. Only what begins with gzip's
    /// magic bytes is inflated: an answer a proxy already inflated is JSON.
    package static func decoded(_ body: ByteBuffer, encoding: String?) throws -> ByteBuffer {
        guard encoding?.lowercased() == "gzip", body.readableBytesView.starts(with: [0x1f, 0x8b]) else { return body }
        // gzip's trailer ends with the inflated size (modulo 2³²): one buffer that size, rather
        // than buffers grown in turn and joined. A stream of several members says less than its
        // whole and overflows it; that one is inflated the general way.
        if let size = body.getInteger(at: body.writerIndex - 4, endianness: .little, as: UInt32.self), size > 0, size <= 64 << 20 {
            var compressed = body
            var inflated = ByteBufferAllocator().buffer(capacity: Int(size))
            do {
                try compressed.decompress(to: &inflated, with: .gzip())
                if compressed.readableBytes == 0 { return inflated }
            } catch let error as CompressNIOError where error == .bufferOverflow {}
        }
        var compressed = body
        return try compressed.decompress(with: .gzip(), maxSize: 64 << 20)
    }
}
