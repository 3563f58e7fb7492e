import FamilySyncPostgres
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 connection, its task run on the connection's own event loop: reading a
/// request, the handler, its statements on a connection of the same loop (`LoopBoundPool`) and
/// writing the answer all on one thread, where each would otherwise hop between Swift's pool and
/// the loops (Benchmarks/README.md, "A connection on its loop").
package struct ConnectionOnItsLoop: ServerChildChannel {
    package typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let executors: EventLoopTaskExecutors

    package init(_ http1: HTTP1Channel, executors: EventLoopTaskExecutors) {
        self.http1 = http1
        self.executors = executors
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger)
    }

    package func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(executors.executor(for: value.channel.eventLoop)) {
            await http1.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// `.http1(configuration:)`, each connection's task on its own loop (`ConnectionOnItsLoop`).
    package static func http1OnItsLoop(configuration: HTTP1Channel.Configuration, group: any EventLoopGroup) -> HTTPServerBuilder {
        let executors = EventLoopTaskExecutors(group)
        return .init { responder in ConnectionOnItsLoop(HTTP1Channel(responder: responder, configuration: configuration), executors: executors) }
    }
}
