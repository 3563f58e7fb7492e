import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Holds back the flush of a response's head until its body's, so that the two leave in one
/// system call. Hummingbird writes a head and its body as one batch only when the body is a single
/// buffer; any other body (a parked poll's answer, a streamed export) has its head written and
/// flushed first, then the body: two writes to the socket, each a wake-up of the client's side
/// too, about a tenth of a small request's CPU (Benchmarks/README.md, "The ladder"). Every answer
/// ends with its `.end` and a flush, so a flush held here is always followed by one that carries
/// it. An informational head (`100 Continue`) goes at once: its client waits for it.
package final class HeadWithItsBody: ChannelOutboundHandler, RemovableChannelHandler, @unchecked Sendable {
    package init() {}

    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    /// Whether the last part written is a final head with nothing after it yet. Confined to the
    /// channel's event loop, as the handler's callbacks are.
    private var headAlone = false

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let head) = unwrapOutboundIn(data) {
            headAlone = head.status.kind != .informational
        } else {
            headAlone = false
        }
        context.write(data, promise: promise)
    }

    package func flush(context: ChannelHandlerContext) {
        guard !headAlone else { return }
        context.flush()
    }
}
