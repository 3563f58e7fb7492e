import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import NIOCore
import NIOHPACK
import NIOPosix
import NIOSSL
import Synchronization

/// HTTP/2 frames written and read by hand over TLS: a client that does what a well-behaved
/// library never would (more streams than allowed, an endless header block, a body that stalls).
final class RawHTTP2Connection: Sendable {
    struct Frame: Sendable, CustomStringConvertible {
        var type: UInt8
        var flags: UInt8
        var stream: UInt32
        var payload: ByteBuffer

        static let data: UInt8 = 0, headers: UInt8 = 1, rstStream: UInt8 = 3, settings: UInt8 = 4, ping: UInt8 = 6, goAway: UInt8 = 7
        static let windowUpdate: UInt8 = 8, continuation: UInt8 = 9
        static let endStream: UInt8 = 0x1, endHeaders: UInt8 = 0x4, ack: UInt8 = 0x1

        /// The error code of a RST_STREAM or GOAWAY.
        var errorCode: UInt32? {
            var payload = payload
            switch type {
            case Self.rstStream: return payload.readInteger(as: UInt32.self)
            case Self.goAway: return payload.getInteger(at: payload.readerIndex + 4, as: UInt32.self)
            default: return nil
            }
        }

        var description: String { "frame type \(type) flags \(flags) stream \(stream) (\(payload.readableBytes) bytes)" }
    }

    private let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private let reader: AsyncThrowingStream<Frame, any Error>
    private let encoder: Mutex<HPACKEncoder>
    private let decoder: Mutex<HPACKDecoder>

    private init(channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) {
        self.channel = channel
        encoder = Mutex(HPACKEncoder(allocator: ByteBufferAllocator()))
        decoder = Mutex(HPACKDecoder(allocator: ByteBufferAllocator(), maxDynamicTableSize: 4096, maxHeaderListSize: 1 << 20))
        let inbound = channel.inbound
        reader = AsyncThrowingStream { continuation in
            let task = Task {
                var buffer = ByteBuffer()
                do {
                    for try await var chunk in inbound {
                        buffer.writeBuffer(&chunk)
                        while let frame = Self.frame(from: &buffer) { continuation.yield(frame) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// A TLS connection to `port` offering only `h2`, its preface and an empty SETTINGS sent.
    static func open(port: Int, trusting certificatePEM: String = TestTLS.shared.certificatePEM) async throws -> RawHTTP2Connection {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
        let connection = RawHTTP2Connection(channel: channel)
        do {
            try await connection.write(ByteBuffer(string: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
            try await connection.send(Frame(type: Frame.settings, flags: 0, stream: 0, payload: ByteBuffer()))
            // The server's SETTINGS acknowledged (its limits hold from then on), and a PING answered
            // after the acknowledgement: the server has taken it.
            _ = try await connection.frames { $0.type == Frame.settings && $0.flags & Frame.ack == 0 }
            try await connection.send(Frame(type: Frame.ping, flags: 0, stream: 0, payload: ByteBuffer(bytes: [1, 2, 3, 4, 5, 6, 7, 8])))
            _ = try await connection.frames { $0.type == Frame.ping && $0.flags & Frame.ack != 0 }
        } catch {
            // An async channel must be finished before it goes (NIO traps otherwise).
            await connection.close()
            throw error
        }
        return connection
    }

    func write(_ buffer: ByteBuffer) async throws {
        try await channel.outbound.write(buffer)
    }

    func send(_ frame: Frame) async throws {
        try await OpenWaits.during("a raw HTTP/2 frame (type \(frame.type), stream \(frame.stream)) written", limit: .seconds(30)) {
            try await write(frame.bytes)
        }
    }

    /// A request head as a client's first frames: the preface, an empty SETTINGS and HEADERS.
    static func opening(_ fields: [(String, String)], stream: UInt32 = 1) throws -> ByteBuffer {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
        var block = ByteBuffer()
        try encoder.encode(headers: HPACKHeaders(fields), to: &block)
        var bytes = ByteBuffer(string: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        var settings = Frame(type: Frame.settings, flags: 0, stream: 0, payload: ByteBuffer()).bytes
        var headers = Frame(type: Frame.headers, flags: Frame.endStream | Frame.endHeaders, stream: stream, payload: block).bytes
        bytes.writeBuffer(&settings)
        bytes.writeBuffer(&headers)
        return bytes
    }
}

extension RawHTTP2Connection.Frame {
    var bytes: ByteBuffer {
        var buffer = ByteBuffer()
        let frame = self
        let length = UInt32(frame.payload.readableBytes)
        buffer.writeInteger(UInt8(length >> 16))
        buffer.writeInteger(UInt16(length & 0xFFFF))
        buffer.writeInteger(frame.type)
        buffer.writeInteger(frame.flags)
        buffer.writeInteger(frame.stream & 0x7FFF_FFFF)
        var payload = frame.payload
        buffer.writeBuffer(&payload)
        return buffer
    }
}

extension RawHTTP2Connection {

    /// A request's head on `stream`, HPACK-encoded; `endStream` when it has no body.
    func sendHeaders(stream: UInt32, _ fields: [(String, String)], endStream: Bool, endHeaders: Bool = true) async throws {
        try await send(Frame(type: Frame.headers, flags: (endStream ? Frame.endStream : 0) | (endHeaders ? Frame.endHeaders : 0), stream: stream, payload: try block(fields)))
    }

    func block(_ fields: [(String, String)]) throws -> ByteBuffer {
        try encoder.withLock { encoder in
            var buffer = ByteBuffer()
            try encoder.encode(headers: HPACKHeaders(fields), to: &buffer)
            return buffer
        }
    }

    static func request(_ method: String, _ path: String, credential: String? = nil, _ extra: [(String, String)] = []) -> [(String, String)] {
        [(":method", method), (":scheme", "https"), (":authority", "localhost"), (":path", path)]
            + (credential.map { [("authorization", "Bearer \($0)")] } ?? []) + extra
    }

    /// The frames that arrive until `done` says so (SETTINGS acknowledged on the way), or until
    /// the connection ends.
    func frames(within limit: Duration = .seconds(30), until done: (Frame) throws -> Bool) async throws -> [Frame] {
        var seen: [Frame] = []
        // A frame that never comes fails the test instead of hanging it.
        let deadline = Task { [channel] in
            try await Task.sleep(for: limit)
            try await channel.channel.close()
        }
        defer { deadline.cancel() }
        let id = OpenWaits.open("raw HTTP/2 frames read", limit: limit)
        defer { OpenWaits.close(id) }
        for try await frame in reader {
            if frame.type == Frame.settings, frame.flags & Frame.ack == 0 {
                try await send(Frame(type: Frame.settings, flags: Frame.ack, stream: 0, payload: ByteBuffer()))
            }
            seen.append(frame)
            if try done(frame) { return seen }
        }
        return seen
    }

    /// A response's status and body on `stream`, read until its END_STREAM (or its reset).
    func response(on stream: UInt32) async throws -> (status: String?, body: String, reset: UInt32?) {
        var status: String?, body = "", reset: UInt32?
        _ = try await frames { frame in
            guard frame.stream == stream else { return false }
            switch frame.type {
            case Frame.headers:
                var block = frame.payload
                status = try decoder.withLock { try $0.decodeHeaders(from: &block) }.first(name: ":status")
            case Frame.data:
                body += String(buffer: frame.payload)
            case Frame.rstStream:
                reset = frame.errorCode
                return true
            default:
                break
            }
            return frame.flags & Frame.endStream != 0 && [Frame.headers, Frame.data].contains(frame.type)
        }
        return (status, body, reset)
    }

    /// Returns once the connection is closed (by the server, or by `close`).
    func closed() async throws {
        try await channel.channel.closeFuture.get()
    }

    func close() async {
        channel.outbound.finish()
        try? await channel.channel.close()
    }

    /// `body` on a new connection, closed after it whatever it did, and closed under it if it
    /// takes longer than `limit` (a write or read waiting on it then ends in an error).
    static func with<Result>(port: Int, within limit: Duration = .seconds(120), _ body: (RawHTTP2Connection) async throws -> Result) async throws -> Result {
        let connection = try await OpenWaits.during("a raw HTTP/2 connection's start", limit: .seconds(60)) { try await open(port: port) }
        let bound = Task {
            try await Task.sleep(for: limit)
            await connection.close()
        }
        defer { bound.cancel() }
        do {
            let result = try await OpenWaits.during("a raw HTTP/2 connection's exchange", limit: limit) { try await body(connection) }
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }

    private static func frame(from buffer: inout ByteBuffer) -> Frame? {
        guard buffer.readableBytes >= 9, let high = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let low = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt16.self)
        else { return nil }
        let length = Int(high) << 16 | Int(low)
        guard buffer.readableBytes >= 9 + length else { return nil }
        buffer.moveReaderIndex(forwardBy: 3)
        let type = buffer.readInteger(as: UInt8.self)!, flags = buffer.readInteger(as: UInt8.self)!
        let stream = buffer.readInteger(as: UInt32.self)! & 0x7FFF_FFFF
        return Frame(type: type, flags: flags, stream: stream, payload: buffer.readSlice(length: length)!)
    }
}
