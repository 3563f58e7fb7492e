import NIOCore

/// Starts a connection's receive buffer at 512 bytes, not NIO's 2,048, and removes itself. NIO
/// keeps a connection's receive buffer between reads, so an idle connection or a held poll holds
/// its size for as long as it is open; a request's head (a poll's, a fetch's) is a few hundred
/// bytes. NIO's adaptive sizing still grows it on full reads (an upload's body). Hummingbird
/// offers no child-channel option for it, so it is set from the pipeline.
package final class ReceiveBufferSizing: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    package init() {}

    package typealias InboundIn = NIOAny

    static let allocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536)

    package func handlerAdded(context: ChannelHandlerContext) {
        // Before the channel's first read: the pipeline is set up before it is registered for reads.
        _ = context.channel.setOption(ChannelOptions.recvAllocator, value: Self.allocator)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
