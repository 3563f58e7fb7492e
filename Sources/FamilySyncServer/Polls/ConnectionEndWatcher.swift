import NIOCore

/// One per connection, in its pipeline: tells a held poll that its client went away. The server
/// allows half-closure, so a client's close ends the connection's input (`inputClosed`) without
/// closing the channel; this sees that, or the channel's end, and calls the poll's callback once.
/// A poll watches through it instead of reading the connection's inbound stream in a task group
/// of its own (`consumeWithInboundCloseHandler`), about 8.5 KiB a held poll (Benchmarks/README.md).
package final class ConnectionEndWatcher: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    package init() {}

    // Passed on as they come: nothing here is read.
    package typealias InboundIn = NIOAny

    /// Confined to the channel's event loop, as the handler's callbacks are.
    private var ended = false
    private var onEnd: (@Sendable () -> Void)?

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { end() }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    private func end() {
        ended = true
        let callback = onEnd
        onEnd = nil
        callback?()
    }

    /// Calls `callback` once `connection`'s input ends, at once if it has: through its watcher,
    /// or, without one (the channel closed already and its pipeline emptied, or a test's channel
    /// has none), at its close. From any thread; nothing to wait for, so a held poll's task keeps
    /// no frame for it.
    static func watch(_ connection: any Channel, _ callback: @escaping @Sendable () -> Void) {
        connection.eventLoop.execute {
            guard let watcher = try? connection.pipeline.syncOperations.handler(type: ConnectionEndWatcher.self) else {
                connection.closeFuture.whenComplete { _ in callback() }
                return
            }
            if watcher.ended { callback() } else { watcher.onEnd = callback }
        }
    }

    /// Forgets the callback: the poll was answered. Runs after `watch` on the same loop.
    static func unwatch(_ connection: any Channel) {
        connection.eventLoop.execute {
            (try? connection.pipeline.syncOperations.handler(type: ConnectionEndWatcher.self))?.onEnd = nil
        }
    }
}
