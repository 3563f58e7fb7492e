import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import NIOHTTPTypesHTTP2
import NIOHTTP2
import Testing

@testable import FamilySyncServer

/// A connection told to come back later is not read again until the pause has passed; every
/// other connection reads at once.
struct ReadsPausedAfterRefusalTests {
    /// Counts the reads that reach the socket's end of the pipeline.
    final class Reads: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = Any
        var count = 0
        func read(context: ChannelHandlerContext) {
            count += 1
            context.read()
        }
    }

    private func channel(pause: Duration = .milliseconds(100), proxies: TrustedProxies = .none, peer: String = "198.51.100.7") throws -> (EmbeddedChannel, Reads) {
        let channel = EmbeddedChannel()
        channel.remoteAddress = try SocketAddress(ipAddress: peer, port: 50_000)
        let reads = Reads()
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandler(ConnectionReadPause())
        try channel.pipeline.syncOperations.addHandler(ReadsPausedAfterRefusal(pause: pause, proxies: proxies))
        return (channel, reads)
    }

    private func answer(_ status: HTTPResponse.Status, retryAfter: String? = "1", on channel: EmbeddedChannel) throws {
        var head = HTTPResponse(status: status)
        if let retryAfter { head.headerFields[.retryAfter] = retryAfter }
        try channel.writeOutbound(HTTPResponsePart.head(head))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
    }

    @Test(arguments: [HTTPResponse.Status.serviceUnavailable, .tooManyRequests])
    func aRefusedConnectionIsReadAgainAfterThePause(status: HTTPResponse.Status) throws {
        let (channel, reads) = try channel()
        try answer(status, on: channel)
        channel.read()
        channel.read()
        #expect(reads.count == 0)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(99))
        #expect(reads.count == 0)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        // The reads asked while paused are one read.
        #expect(reads.count == 1)
        // Then the connection reads at once again.
        channel.read()
        #expect(reads.count == 2)
        #expect(try channel.finish().isClean)
    }

    @Test func aReadAfterThePauseHasPassedGoesAtOnce() throws {
        let (channel, reads) = try channel()
        try answer(.serviceUnavailable, on: channel)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(150))
        channel.read()
        #expect(reads.count == 1)
        #expect(try channel.finish().isClean)
    }

    @Test func otherAnswersDoNotPause() throws {
        let (channel, reads) = try channel()
        try answer(.ok, retryAfter: nil, on: channel)
        channel.read()
        // A 503 with no Retry-After (a database gone) asks no pace of the client.
        try answer(.serviceUnavailable, retryAfter: nil, on: channel)
        channel.read()
        // Nor does a 409's Retry-After (an idempotency key still being answered).
        try answer(.conflict, on: channel)
        channel.read()
        #expect(reads.count == 3)
        #expect(try channel.finish().isClean)
    }

    @Test func aTrustedProxysConnectionIsNeverPaused() throws {
        let (channel, reads) = try channel(proxies: try TrustedProxies(parsing: "10.0.0.0/8"), peer: "10.1.2.3")
        try answer(.serviceUnavailable, on: channel)
        channel.read()
        #expect(reads.count == 1)
        #expect(try channel.finish().isClean)
    }

    @Test func aZeroPauseIsNone() throws {
        let (channel, reads) = try channel(pause: .zero)
        try answer(.tooManyRequests, on: channel)
        channel.read()
        #expect(reads.count == 1)
        #expect(try channel.finish().isClean)
    }

    @Test func aClosedConnectionDropsItsWaitingRead() throws {
        let (channel, reads) = try channel()
        try answer(.serviceUnavailable, on: channel)
        channel.read()
        _ = try channel.finish()
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(reads.count == 0)
    }
}

/// Over HTTP/2 the refusal is a stream's and the pause its connection's: a refused stream holds
/// back the next read of the connection that carries it, and so every stream of it.
struct StreamRefusalPausesItsConnectionTests {
    @Test func aRefusedStreamPausesItsConnectionsReads() throws {
        let connection = EmbeddedChannel()
        connection.remoteAddress = try SocketAddress(ipAddress: "198.51.100.7", port: 50_000)
        let reads = ReadsPausedAfterRefusalTests.Reads()
        let opened = NIOLoopBoundBox<(any Channel)?>(nil, eventLoop: connection.eventLoop)
        try connection.pipeline.syncOperations.addHandler(reads)
        try connection.pipeline.syncOperations.addHandler(ConnectionReadPause())
        try connection.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server, eventLoop: connection.eventLoop) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                try stream.pipeline.syncOperations.addHandler(ReadsPausedAfterRefusal(pause: .milliseconds(100), proxies: .none))
                opened.value = stream
            }
        })
        try connection.connect(to: SocketAddress(ipAddress: "198.51.100.7", port: 50_000)).wait()
        try connection.writeInbound(RawHTTP2Connection.opening(RawHTTP2Connection.request("GET", "/v1/devices/me")))
        let stream = try #require(opened.value)
        #expect(stream.parent === connection)

        var refusal = HTTPResponse(status: .tooManyRequests)
        refusal.headerFields[.retryAfter] = "1"
        stream.write(HTTPResponsePart.head(refusal), promise: nil)
        stream.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
        let before = reads.count
        connection.read()
        #expect(reads.count == before, "the connection was read at once after its stream's refusal")
        connection.embeddedEventLoop.advanceTime(by: .milliseconds(100))
        #expect(reads.count == before + 1)
        _ = try? connection.finish()
    }
}
