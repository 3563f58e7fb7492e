import NIOCore
import NIOTLS

/// The ends of a TLS connection that its protocols' own handlers leave open.
///
/// - A handshake not finished within the idle timeout closes the connection: until ALPN has chosen
///   a protocol no idle timer of HTTP/1.1's or HTTP/2's is in the pipeline, and a client that
///   connects and sends nothing would otherwise hold its socket for good.
/// - A shutdown that reaches a connection before its protocol is chosen closes it: no handler
///   after this one would know to end it, and the shutdown would wait for it.
/// - A shutdown gives an HTTP/2 connection its grace (NIOHTTP2's connection manager, which starts
///   that grace only when the client answers the GOAWAY's PING) and then closes it, so that a
///   client that never answers cannot hold the shutdown. Clients that stop answering PINGs once
///   they have a GOAWAY are common (AsyncHTTPClient with streams open is one); gRPC's servers
///   bound the same wait.
final class SecureConnectionDeadlines: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let handshakeLimit: TimeAmount
    private let shutdownGrace: TimeAmount
    private var negotiated: String??
    private var deadline: Scheduled<Void>?

    /// - Parameters:
    ///   - handshakeLimit: how long a connection may take to finish its handshake.
    ///   - shutdownGrace: how long an HTTP/2 connection is kept once a shutdown reached it.
    init(handshakeLimit: TimeAmount, shutdownGrace: TimeAmount) {
        self.handshakeLimit = handshakeLimit
        self.shutdownGrace = shutdownGrace
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startHandshakeDeadline(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startHandshakeDeadline(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case TLSUserEvent.handshakeCompleted(let negotiatedProtocol) as TLSUserEvent:
            deadline?.cancel()
            deadline = nil
            negotiated = .some(negotiatedProtocol)
        case is ChannelShouldQuiesceEvent:
            switch negotiated {
            case .none:
                context.close(promise: nil)
                return
            case .some("h2"):
                closeAfter(shutdownGrace, context: context)
            case .some:
                // HTTP/1.1's own handler closes the connection once its answer is written.
                break
            }
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func startHandshakeDeadline(context: ChannelHandlerContext) {
        guard deadline == nil, negotiated == nil else { return }
        closeAfter(handshakeLimit, context: context)
    }

    private func closeAfter(_ delay: TimeAmount, context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
    }
}

/// Closes an HTTP/2 connection that opens no stream within the idle timeout. NIOHTTP2's
/// connection manager starts its idle timer when the connection becomes active, which a
/// connection whose protocol ALPN chose did before the manager was added, and again only when
/// a stream closes. The connection's stream initializer says when a stream opens (no event of
/// NIOHTTP2's reaches the pipeline for it).
final class FirstStreamDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let limit: TimeAmount
    private var deadline: Scheduled<Void>?
    private var opened = false

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard !opened else { return }
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    /// A stream opened: the connection manager's idle timer has the connection from now on.
    func streamOpened() {
        opened = true
        deadline?.cancel()
        deadline = nil
    }
}
