import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import FamilySyncServer

/// A response's head leaves with its body: its own flush is held until the body's.
struct HeadWithItsBodyTests {
    private func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HeadWithItsBody())
        return channel
    }

    /// `part` written and flushed. (Not `writeAndFlush(_:).wait()`: a held head's write completes
    /// only with the flush that sends it.)
    private func send(_ part: HTTPResponsePart, on channel: EmbeddedChannel) {
        channel.write(part, promise: nil)
        channel.flush()
    }

    /// What the channel has sent so far, as part names.
    private func sent(_ channel: EmbeddedChannel) throws -> [String] {
        var parts: [String] = []
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            switch part {
            case .head(let head): parts.append("head \(head.status.code)")
            case .body(let body): parts.append("body \(body.readableBytes)")
            case .end: parts.append("end")
            }
        }
        return parts
    }

    @Test func aHeadFlushedAloneWaitsForItsBody() throws {
        let channel = try channel()
        send(HTTPResponsePart.head(HTTPResponse(status: .ok)), on: channel)
        #expect(try sent(channel) == [])
        channel.write(HTTPResponsePart.body(ByteBuffer(string: "{}")), promise: nil)
        send(HTTPResponsePart.end(nil), on: channel)
        #expect(try sent(channel) == ["head 200", "body 2", "end"])
        #expect(try channel.finish().isClean)
    }

    @Test func eachFlushAfterTheHeadGoesOut() throws {
        let channel = try channel()
        send(HTTPResponsePart.head(HTTPResponse(status: .ok)), on: channel)
        send(HTTPResponsePart.body(ByteBuffer(string: "first")), on: channel)
        #expect(try sent(channel) == ["head 200", "body 5"])
        send(HTTPResponsePart.body(ByteBuffer(string: "second")), on: channel)
        #expect(try sent(channel) == ["body 6"])
        send(HTTPResponsePart.end(nil), on: channel)
        #expect(try sent(channel) == ["end"])
        // The next answer's head waits again.
        send(HTTPResponsePart.head(HTTPResponse(status: .notFound)), on: channel)
        #expect(try sent(channel) == [])
        send(HTTPResponsePart.end(nil), on: channel)
        #expect(try sent(channel) == ["head 404", "end"])
    }

    @Test func anInformationalHeadGoesAtOnce() throws {
        let channel = try channel()
        send(HTTPResponsePart.head(HTTPResponse(status: .continue)), on: channel)
        #expect(try sent(channel) == ["head 100"])
        send(HTTPResponsePart.head(HTTPResponse(status: .created)), on: channel)
        #expect(try sent(channel) == [])
        send(HTTPResponsePart.end(nil), on: channel)
        #expect(try sent(channel) == ["head 201", "end"])
    }
}
