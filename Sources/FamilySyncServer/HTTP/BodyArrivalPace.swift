import FamilySyncCore
import FamilySyncProtocol
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Holds a request body to its pace (`BodyPace`, PROTOCOL §1.3): a body that falls behind is
/// answered `408 REQUEST_TIMEOUT` and its connection closed. The idle timeout cannot see such a
/// body, since a byte now and then is traffic; without this, a client could hold a connection and
/// the memory of a partly read body for as long as it liked, with or without a credential.
///
/// The clock runs only while the server is asking for more of the body: the time between a read
/// and the server's next request for one (a body its handler has not read yet, the socket's reads
/// held back after a refusal) is added to the body's allowance, so a busy server never blames its
/// client. A request whose head and end arrive in one read (every GET) never starts a timer.
///
/// Each address block (`AddressBlock`) may have only so many bodies arriving at once across its
/// connections (`BodiesInFlight`), counted from a second after a body began (one that arrives
/// within it, nearly every body, is never counted): one more is answered `429 THROTTLED` and its
/// connection closed, so that many connections each keeping the pace cannot hold many bodies'
/// memory either. A trusted proxy's connections are not counted: a proxy such as nginx reads a
/// body whole before it passes it on, and it carries other clients'.
package final class BodyArrivalPace: ChannelDuplexHandler, RemovableChannelHandler, @unchecked Sendable {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let pace: BodyPace
    private let inFlight: BodiesInFlight
    private let proxies: TrustedProxies
    // The rest is confined to the channel's event loop, as the handler's callbacks are.
    /// Between a request's head and its end.
    private var open = false
    private var received = 0
    private var started: NIODeadline?
    /// Since when the server has not asked for more (nil: it has asked and waits for the client).
    private var unaskedSince: NIODeadline?
    /// The time the server did not ask for more of the open request's body.
    private var unasked: TimeAmount = .zero
    /// The server began its answer to the open request (an early refusal): a 408 would be a second.
    private var answered = false
    private var check: Scheduled<Void>?
    /// The address block the open body counts against, while it does.
    private var counted: String?
    /// Whether the open body has been weighed against its address's bodies in flight.
    private var weighed = false
    /// Answered 408 or 429: what still arrives is dropped, so the request never runs after its
    /// client was told it failed.
    private var refused = false
    static let countedAfter = TimeAmount.seconds(1)

    package init(pace: BodyPace, inFlight: BodiesInFlight, proxies: TrustedProxies) {
        self.pace = pace
        self.inFlight = inFlight
        self.proxies = proxies
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        uncount()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        uncount()
        context.fireChannelInactive()
    }

    private func uncount() {
        if let counted { inFlight.leave(counted) }
        counted = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head:
            open = true
            received = 0
            unasked = .zero
            answered = false
            weighed = false
        case .body(let buffer):
            received += buffer.readableBytes
        case .end:
            open = false
            started = nil
            unaskedSince = nil
            check?.cancel()
            check = nil
            uncount()
        }
        context.fireChannelRead(data)
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        if open {
            let now = context.eventLoop.now
            unaskedSince = now
            if started == nil {
                started = now
                // The first check weighs the body against its address's (`due`).
                schedule(context, at: now + min(Self.countedAfter, TimeAmount(pace.allowance(received: received))))
            }
        }
        context.fireChannelReadComplete()
    }

    package func read(context: ChannelHandlerContext) {
        if let since = unaskedSince {
            unasked = unasked + (context.eventLoop.now - since)
            unaskedSince = nil
        }
        context.read()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if open, case .head = unwrapOutboundIn(data) { answered = true }
        context.write(data, promise: promise)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        check = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) { [self] in
            check = nil
            due(context)
        }
    }

    private func due(_ context: ChannelHandlerContext) {
        guard open, let started else { return }
        if !weighed {
            weighed = true
            if let peer = context.channel.remoteAddress?.ipAddress, !proxies.trusts(peer) {
                let key = AddressBlock.key(of: peer)
                guard inFlight.enter(key) else {
                    open = false
                    self.started = nil
                    if answered { return context.close(promise: nil) }
                    return refuse(context, FamilySyncError(.throttled, "Too many request bodies are arriving from this address at once; send this one again in a moment.", retryAfter: 1))
                }
                counted = key
            }
        }
        let now = context.eventLoop.now
        // The server has not asked for more: the wait is its own, and nothing is due yet.
        guard unaskedSince == nil else { return schedule(context, at: now + TimeAmount(pace.grace)) }
        let deadline = started + TimeAmount(pace.allowance(received: received)) + unasked
        if deadline > now { return schedule(context, at: deadline) }
        open = false
        self.started = nil
        uncount()
        guard !answered else {
            context.close(promise: nil)
            return
        }
        refuse(context, FamilySyncError(
            .requestTimeout,
            "The request body arrived too slowly: \(received) bytes so far; a body has \(pace.grace.components.seconds) s and a second more for each \(pace.bytesPerSecond) bytes it delivers."
        ))
    }

    /// `error` as §1.1's answer, then the connection closed: what is left of the body is not read,
    /// and a peer that does not read the answer is closed a second later all the same.
    private func refuse(_ context: ChannelHandlerContext, _ error: FamilySyncError) {
        refused = true
        context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: .seconds(1)) { [channel = context.channel] in channel.close(promise: nil) }
        let body = ByteBuffer(bytes: (try? JSONEncoder.wire.encode(ErrorResponse(error))) ?? Data())
        var head = HTTPResponse(status: error.code.httpStatus)
        head.headerFields[.contentType] = "application/json; charset=utf-8"
        head.headerFields[.contentLength] = String(body.readableBytes)
        head.headerFields[.connection] = "close"
        if let retryAfter = error.retryAfter { head.headerFields[.retryAfter] = String(retryAfter) }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolatedUnsafeUnchecked().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
