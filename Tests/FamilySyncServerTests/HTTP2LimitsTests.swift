import FamilySyncCore
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import NIOCore
import Testing

/// What one HTTP/2 connection may ask of the server (PROTOCOL §1.3, "HTTP/2"), held against a
/// client that asks more: the stream past the limit is refused and the connection goes on; a
/// header block past its size or an endless one ends the connection; a stream's body keeps its
/// pace.
@Suite struct HTTP2LimitsTests {
    typealias Frame = RawHTTP2Connection.Frame

    /// A client that opens more streams than the connection allows is not a client to serve:
    /// NIOHTTP2 ends the connection (GOAWAY, PROTOCOL_ERROR) rather than refusing the one stream.
    /// The server serves everyone else as ever.
    @Test func aStreamPastTheConcurrentLimitEndsTheConnection() async throws {
        // The hundred bodies that never come are the test's, not a slow client's: neither their
        // pace nor their address's count of bodies in flight may answer them first (§1.3).
        let configuration = try HTTPSServingTests.secure {
            $0.bodyPace = BodyPace(grace: .seconds(3600), bytesPerSecond: 1024)
            $0.bodiesInFlightPerAddress = 1000
        }
        try await withTestServer(configuration: configuration) { server in
            try await RawHTTP2Connection.with(port: server.port) { connection in
                // As many streams as allowed, each a request whose body has not come yet.
                for stream in (0..<UInt32(HTTP2Limits.concurrentStreams)).map({ 1 + 2 * $0 }) {
                    try await connection.sendHeaders(
                        stream: stream, RawHTTP2Connection.request("POST", "/v1/families", [("content-type", "application/json"), ("content-length", "2")]),
                        endStream: false
                    )
                }
                // Still open: the last of them is answered when its body comes.
                let last = UInt32(2 * HTTP2Limits.concurrentStreams - 1)
                try await connection.send(Frame(type: Frame.data, flags: Frame.endStream, stream: last, payload: ByteBuffer(string: "{}")))
                let answer = try await connection.response(on: last)
                #expect(answer.status == "400", "\(answer)")
                #expect(answer.body.contains("BAD_REQUEST"))
                // The limit's last stream again (99 wait), then one past it.
                try await connection.sendHeaders(
                    stream: last + 2, RawHTTP2Connection.request("POST", "/v1/families", [("content-type", "application/json"), ("content-length", "2")]),
                    endStream: false
                )
                try await connection.sendHeaders(stream: last + 4, RawHTTP2Connection.request("GET", "/health/live"), endStream: true)
                let frames = try await connection.frames { $0.type == Frame.goAway }
                #expect(frames.last?.type == Frame.goAway, "\(frames.suffix(3))")
                #expect(frames.last?.errorCode == 0x1, "PROTOCOL_ERROR")
            }
            #expect(try await server.send(.get, "/health/live").status == .ok)
        }
    }

    @Test func aHeaderBlockPastItsSizeEndsTheConnection() async throws {
        try await withTestServer(configuration: try HTTPSServingTests.secure()) { server in
            try await RawHTTP2Connection.with(port: server.port) { connection in
            // A field larger than the header list allows, in frames of the allowed size.
            var block = try connection.block(RawHTTP2Connection.request("GET", "/health/live", [("x-large", String(repeating: "a", count: HTTP2Limits.headerListBytes + 1024))]))
            var first = true
            while block.readableBytes > 0 {
                let chunk = block.readSlice(length: min(block.readableBytes, HTTP2Limits.frameBytes))!
                let last = block.readableBytes == 0
                try await connection.send(Frame(type: first ? Frame.headers : Frame.continuation, flags: (first ? Frame.endStream : 0) | (last ? Frame.endHeaders : 0), stream: 1, payload: chunk))
                first = false
            }
            let frames = try await connection.frames { $0.type == Frame.goAway || ($0.stream == 1 && $0.type == Frame.rstStream) }
            #expect(!frames.contains { $0.stream == 1 && $0.type == Frame.headers }, "the request was answered")
            #expect(frames.contains { $0.type == Frame.goAway || $0.type == Frame.rstStream }, "\(frames)")
            // Another connection is served as ever.
            #expect(try await server.send(.get, "/health/live").status == .ok)
            }
        }
    }

    @Test func anEndlessHeaderBlockEndsTheConnection() async throws {
        try await withTestServer(configuration: try HTTPSServingTests.secure()) { server in
            try await RawHTTP2Connection.with(port: server.port) { connection in
            var block = try connection.block(RawHTTP2Connection.request("GET", "/health/live"))
            try await connection.send(Frame(type: Frame.headers, flags: Frame.endStream, stream: 1, payload: block.readSlice(length: 4)!))
            // Small CONTINUATION frames, never the last: far more than the connection allows.
            var sent = 0
            do {
                for _ in 0..<(HTTP2Limits.continuationFrames * 20) {
                    try await connection.send(Frame(type: Frame.continuation, flags: 0, stream: 1, payload: ByteBuffer(bytes: [0x40, 0x01, 0x61, 0x01, 0x62])))
                    sent += 1
                }
            } catch {
                // The server closed the connection while frames were still going out.
            }
            let frames = try await connection.frames { $0.type == Frame.goAway }
            #expect(frames.last?.type == Frame.goAway, "\(frames.suffix(3)) after \(sent) frames")
            #expect(!frames.contains { $0.stream == 1 && $0.type == Frame.headers })
            #expect(try await server.send(.get, "/health/live").status == .ok)
            }
        }
    }

    /// A stream whose body stalls is answered 408 with §1.1's body; the connection's next stream
    /// is answered as ever.
    @Test func aStreamWhoseBodyStallsIsAnswered408() async throws {
        let configuration = try HTTPSServingTests.secure { $0.bodyPace = BodyPace(grace: .seconds(1), bytesPerSecond: 1024) }
        try await withTestServer(configuration: configuration) { server in
            let parent = try await server.createFamily()
            try await RawHTTP2Connection.with(port: server.port) { connection in
            try await connection.sendHeaders(
                stream: 1,
                RawHTTP2Connection.request("POST", "/v1/zones/notes/records/modify", credential: parent.credential, [("content-type", "application/json"), ("content-length", "100000")]),
                endStream: false
            )
            try await connection.send(Frame(type: Frame.data, flags: 0, stream: 1, payload: ByteBuffer(string: #"{"operations":["#)))
            let answer = try await connection.response(on: 1)
            #expect(answer.status == "408", "\(answer)")
            #expect(answer.body.contains("REQUEST_TIMEOUT"))
            try await connection.sendHeaders(stream: 3, RawHTTP2Connection.request("GET", "/health/live"), endStream: true)
            #expect(try await connection.response(on: 3).status == "200")
            }
        }
    }
}
