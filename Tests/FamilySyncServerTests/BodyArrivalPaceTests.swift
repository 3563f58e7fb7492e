import FamilySyncCore
import FamilySyncProtocol
import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import FamilySyncServer

/// A request body must keep its pace (PROTOCOL §1.3): one that falls behind while the server
/// waits for it is answered 408 and its connection closed; one the server is not asking for yet
/// is never blamed.
struct BodyArrivalPaceTests {
    static let pace = BodyPace(grace: .seconds(2), bytesPerSecond: 1024)

    private func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(BodyArrivalPace(pace: Self.pace))
        try channel.connect(to: SocketAddress(ipAddress: "198.51.100.7", port: 50_000)).wait()
        return channel
    }

    private func head(_ method: HTTPRequest.Method = .post) -> HTTPRequestPart {
        var request = HTTPRequest(method: method, scheme: nil, authority: "localhost", path: "/v1/families")
        request.headerFields[.contentLength] = "4000000"
        return .head(request)
    }

    /// What arrives, as one read of the socket.
    private func arrive(_ parts: HTTPRequestPart..., on channel: EmbeddedChannel) throws {
        for part in parts { try channel.writeInbound(part) }
        channel.pipeline.fireChannelReadComplete()
        while try channel.readInbound(as: HTTPRequestPart.self) != nil {}
    }

    private func answered(_ channel: EmbeddedChannel) throws -> (HTTPResponse, ErrorResponse)? {
        guard case .head(let head) = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        guard case .body(let body) = try channel.readOutbound(as: HTTPResponsePart.self) else { return nil }
        return (head, try JSONDecoder().decode(ErrorResponse.self, from: Data(body.readableBytesView)))
    }

    @Test func aBodyThatFallsBehindIsAnswered408AndClosed() throws {
        let channel = try channel()
        channel.read()
        try arrive(head(), .body(ByteBuffer(string: "{")), on: channel)
        channel.read()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_999))
        #expect(channel.isActive)
        // A byte buys a millisecond: the drip does not keep it open.
        try arrive(.body(ByteBuffer(string: " ")), on: channel)
        channel.read()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(3))
        let (head, body) = try #require(try answered(channel))
        #expect(head.status == .requestTimeout)
        #expect(head.headerFields[.connection] == "close")
        #expect(body.error.code == "REQUEST_TIMEOUT")
        #expect(!channel.isActive)
    }

    @Test func aBodyAtItsPaceIsNeverInterrupted() throws {
        let channel = try channel()
        channel.read()
        try arrive(head(), on: channel)
        // 1 KiB a second, for a minute: each second's bytes buy the next.
        for _ in 0..<60 {
            channel.read()
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            try arrive(.body(ByteBuffer(repeating: 0x20, count: 1024)), on: channel)
        }
        try arrive(.end(nil), on: channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(600))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        #expect(channel.isActive)
        #expect(try channel.finish().isClean)
    }

    @Test func aBodyTheServerIsNotReadingIsNotBlamed() throws {
        let channel = try channel()
        channel.read()
        try arrive(head(), .body(ByteBuffer(string: "{")), on: channel)
        // The server asks for nothing more (its handler is busy elsewhere) for a minute.
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        #expect(channel.isActive)
        // When it asks again, the client has what was left of its allowance, and then no more.
        channel.read()
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_900))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(try answered(channel)?.0.status == .requestTimeout)
        #expect(!channel.isActive)
    }

    @Test func aRequestWholeInOneReadStartsNoClock() throws {
        let channel = try channel()
        channel.read()
        var get = HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: "/v1/poll")
        get.headerFields[.accept] = "application/json"
        try arrive(.head(get), .end(nil), on: channel)
        channel.read()
        // A held poll is answered whenever it is; the body pace has nothing to say of it.
        channel.embeddedEventLoop.advanceTime(by: .seconds(600))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        #expect(channel.isActive)
        #expect(try channel.finish().isClean)
    }

    @Test func anAnswerAlreadyBegunIsNotFollowedByA408() throws {
        let channel = try channel()
        channel.read()
        try arrive(head(), .body(ByteBuffer(string: "{")), on: channel)
        // An early refusal (a 401 before the body is read), its body still coming.
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .unauthorized)))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) != nil)
        channel.read()
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil)
        #expect(!channel.isActive)
    }
}
