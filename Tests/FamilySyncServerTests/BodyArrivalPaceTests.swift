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

    private func channel(
        inFlight: BodiesInFlight = BodiesInFlight(limit: 16), proxies: TrustedProxies = .none, peer: String = "198.51.100.7"
    ) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(BodyArrivalPace(pace: Self.pace, inFlight: inFlight, proxies: proxies))
        try channel.connect(to: SocketAddress(ipAddress: peer, port: 50_000)).wait()
        channel.remoteAddress = try SocketAddress(ipAddress: peer, port: 50_000)
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

    /// Many connections each keeping the pace would hold many bodies' memory: one address block
    /// has only so many arriving at once a second after they began, and one more is refused and
    /// closed. A body whole within that second is never counted.
    @Test func anAddressHasOnlySoManyBodiesArrivingAtOnce() throws {
        let inFlight = BodiesInFlight(limit: 1)
        func opened(_ peer: String) throws -> EmbeddedChannel {
            let channel = try channel(inFlight: inFlight, peer: peer)
            channel.read()
            try arrive(head(), .body(ByteBuffer(string: "{")), on: channel)
            channel.read()
            return channel
        }
        let quick = try opened("2001:db8:5:5::9")
        try arrive(.end(nil), on: quick)
        let first = try opened("2001:db8:5:5::1")
        first.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(first.isActive)
        // Another host of the same /64: refused a second on, with a time to come back.
        let second = try opened("2001:db8:5:5::2")
        second.embeddedEventLoop.advanceTime(by: .seconds(1))
        let (refusal, body) = try #require(try answered(second))
        #expect(refusal.status == .tooManyRequests && refusal.headerFields[.retryAfter] == "1" && body.error.code == "THROTTLED")
        #expect(!second.isActive)
        // Another address is its own; and once the first body is whole, the address may send again.
        let elsewhere = try opened("203.0.113.9")
        elsewhere.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(try elsewhere.isActive && elsewhere.readOutbound(as: HTTPResponsePart.self) == nil)
        try arrive(.end(nil), on: first)
        let third = try opened("2001:db8:5:5::3")
        third.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(try third.isActive && third.readOutbound(as: HTTPResponsePart.self) == nil)
        // A connection that closes mid-body counts no more.
        try third.close().wait()
        let fourth = try opened("2001:db8:5:5::4")
        fourth.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(fourth.isActive)
    }

    @Test func aTrustedProxysBodiesAreNotCounted() throws {
        let inFlight = BodiesInFlight(limit: 1)
        let proxies = try TrustedProxies(parsing: "10.0.0.1")
        for _ in 0..<3 {
            let channel = try channel(inFlight: inFlight, proxies: proxies, peer: "10.0.0.1")
            channel.read()
            try arrive(head(), .body(ByteBuffer(string: "{")), on: channel)
            channel.read()
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            #expect(try channel.isActive && channel.readOutbound(as: HTTPResponsePart.self) == nil)
        }
    }
}
