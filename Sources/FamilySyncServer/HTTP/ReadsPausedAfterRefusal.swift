import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// After a connection is answered `429` or `503` with `Retry-After`, the server's next read of it
/// waits until `pause` has passed since that answer. A client that keeps `Retry-After` never
/// notices; one that asks again at once is paced by its socket instead of answered as fast as it
/// can ask. However cheap a refusal, such a client sends its next request the moment it has one,
/// so the loops stay full of refusals and a neighbour's request waits a turn of its loop behind
/// them at each of its round trips to the database (Benchmarks/README.md, "A refused connection
/// read after a pause"). Nothing is held meanwhile: the answer has gone, and the next request
/// waits in the kernel's buffer. A request already read, or a read the connection already asked
/// for, is not held back. A trusted proxy's connection is never paused: it carries other
/// clients' requests.
///
/// This sees the answers: in an HTTP/1.1 connection's pipeline, or an HTTP/2 stream's. The pause
/// is the connection's (`ConnectionReadPause`, in an HTTP/1.1 connection's pipeline or under an
/// HTTP/2 connection's TLS): a stream's refusal pauses all of its connection's streams, as a
/// refused HTTP/1.1 client's next request waits.
package final class ReadsPausedAfterRefusal: ChannelOutboundHandler, RemovableChannelHandler, @unchecked Sendable {
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let pause: TimeAmount
    private let proxies: TrustedProxies
    /// Whether the peer is a trusted proxy: asked at the first refusal, when the connection surely
    /// has its peer's address. Confined to the channel's event loop.
    private var proxied: Bool?

    package init(pause: Duration, proxies: TrustedProxies) {
        self.pause = .nanoseconds(Int64(pause / .nanoseconds(1)))
        self.proxies = proxies
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if pause > .zero, case .head(let head) = unwrapOutboundIn(data), head.status == .tooManyRequests || head.status == .serviceUnavailable,
            head.headerFields[.retryAfter] != nil
        {
            let proxied = self.proxied ?? (context.channel.remoteAddress?.ipAddress.map(proxies.trusts) == true)
            self.proxied = proxied
            if !proxied, let target = Self.connectionPause(of: context.channel) {
                target.pause(until: context.eventLoop.now + pause)
            }
        }
        context.write(data, promise: promise)
    }

    /// The pause of the connection `channel` is or belongs to: an HTTP/1.1 connection's own, or an
    /// HTTP/2 stream's parent's (on the same loop). An accepted connection's parent is the
    /// listening socket, on another loop: it is never asked.
    static func connectionPause(of channel: any Channel) -> ConnectionReadPause? {
        if let own = try? channel.pipeline.syncOperations.handler(type: ConnectionReadPause.self) { return own }
        guard let parent = channel.parent, parent.eventLoop === channel.eventLoop else { return nil }
        return try? parent.pipeline.syncOperations.handler(type: ConnectionReadPause.self)
    }
}

/// A connection's reads held until a time (`ReadsPausedAfterRefusal`): one read waits, the ones
/// asked meanwhile are the same read.
package final class ConnectionReadPause: ChannelOutboundHandler, RemovableChannelHandler, @unchecked Sendable {
    package typealias OutboundIn = Any

    // Confined to the channel's event loop, as the handler's callbacks are.
    private var pausedUntil: NIODeadline?
    private var resume: Scheduled<Void>?

    package init() {}

    func pause(until deadline: NIODeadline) {
        pausedUntil = max(pausedUntil ?? deadline, deadline)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
    }

    package func read(context: ChannelHandlerContext) {
        guard let until = pausedUntil, until > context.eventLoop.now else {
            pausedUntil = nil
            return context.read()
        }
        guard resume == nil else { return }
        resume = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: until) { [self] in
            resume = nil
            pausedUntil = nil
            context.read()
        }
    }
}
