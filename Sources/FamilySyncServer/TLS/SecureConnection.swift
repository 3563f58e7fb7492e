import FamilySyncPostgres
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import NIOHTTPTypesHTTP2
import NIOSSL
import NIOTLS

/// One TLS connection: HTTP/2 or HTTP/1.1 as its client chose by ALPN, its task on the
/// connection's own event loop as a plain connection's is (`ConnectionOnItsLoop`).
///
/// Each HTTP/2 stream is one request and is answered by the same code as an HTTP/1.1 connection
/// (Hummingbird's `HTTP1Channel.handle`, which reads a request, answers it and ends with its
/// input), so the two versions differ only in their pipelines: a stream's holds the request's own
/// handlers (`streamHandlers`: its body's pace, its head written with its body, its end watched by
/// a held poll), the connection's those of the connection (`connectionHandlers`: its receive
/// buffer, its reads paused after a refusal) under TLS. Hummingbird's `HTTP2UpgradeChannel` sets
/// none of HTTP/2's limits and has no place for connection handlers, hence this.
package struct SecureConnection: ServerChildChannel {
    package typealias Streams = NIOHTTP2Handler.AsyncStreamMultiplexer<HTTP1Channel.Value>

    package struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<NIONegotiatedHTTPVersion<HTTP1Channel.Value, Streams>>
        package let channel: any Channel
    }

    let context: NIOSSLContext
    let http1: HTTP1Channel
    let connectionHandlers: @Sendable () -> [any RemovableChannelHandler]
    let streamHandlers: @Sendable () -> [any RemovableChannelHandler]
    let lifetime: NIOHTTP2ServerConnectionManagementHandler.Configuration
    let idleTimeout: TimeAmount
    let executors: EventLoopTaskExecutors

    /// - Parameters:
    ///   - http1: answers HTTP/1.1 connections and every HTTP/2 stream; its configuration's
    ///     handlers go into an HTTP/1.1 connection's pipeline.
    ///   - idleTimeout: how long an HTTP/2 connection with no stream open is kept.
    package init(
        tls: TLSConfiguration, http1: HTTP1Channel, idleTimeout: TimeAmount, connectionHandlers: @escaping @Sendable () -> [any RemovableChannelHandler],
        streamHandlers: @escaping @Sendable () -> [any RemovableChannelHandler], executors: EventLoopTaskExecutors
    ) throws {
        context = try NIOSSLContext(configuration: tls)
        self.http1 = http1
        self.connectionHandlers = connectionHandlers
        self.streamHandlers = streamHandlers
        self.executors = executors
        self.idleTimeout = idleTimeout
        // A connection closed by a shutdown gives its streams what a plain connection's request
        // gets; keep-alive pings are not needed, the idle timeout ends a connection gone quiet.
        lifetime = .init(maxIdleTime: idleTimeout, maxAge: nil, maxGraceTime: Self.shutdownGrace, keepalive: nil)
    }

    /// How long a shutdown lets an HTTP/2 connection's streams finish.
    static let shutdownGrace = TimeAmount.seconds(10)

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers(connectionHandlers())
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
            // The client's answer to the shutdown's PING, which starts the grace, gets a few seconds.
            try channel.pipeline.syncOperations.addHandler(SecureConnectionDeadlines(handshakeLimit: idleTimeout, shutdownGrace: Self.shutdownGrace + .seconds(5)))
        }.flatMap {
            channel.configureHTTP2AsyncSecureUpgrade { channel in
                http1.setup(channel: channel, logger: logger)
            } http2ConnectionInitializer: { channel in
                channel.eventLoop.makeCompletedFuture {
                    // The server allows half-closure for HTTP/1.1's held polls; an HTTP/2 client
                    // that ends its side has ended the connection, which would otherwise stay
                    // half open until a shutdown that then waits for it.
                    try channel.pipeline.syncOperations.addHandler(ClosedWhenInputEnds(), position: .first)
                    let firstStream = NIOLoopBound(FirstStreamDeadline(limit: idleTimeout), eventLoop: channel.eventLoop)
                    let streams = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(
                        mode: .server, connectionManagerConfiguration: lifetime, http2HandlerConfiguration: HTTP2Limits.configuration
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            firstStream.value.streamOpened()
                            let pipeline = stream.pipeline.syncOperations
                            try pipeline.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                            try pipeline.addHandler(ConnectionFieldsDropped())
                            try pipeline.addHandlers(streamHandlers())
                            try pipeline.addHandler(HTTPConnectionStateHandler(logger: logger))
                            return try HTTP1Channel.Value(wrappingChannelSynchronously: stream)
                        }
                    }
                    try channel.pipeline.syncOperations.addHandler(firstStream.value)
                    return streams
                }
            }
        }.map { Value(negotiated: $0, channel: channel) }
    }

    package func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(executors.executor(for: value.channel.eventLoop)) {
            do {
                switch try await value.negotiated.get() {
                case .http1_1(let connection):
                    await http1.handle(value: connection, logger: logger)
                case .http2(let streams):
                    try await withThrowingDiscardingTaskGroup { group in
                        for try await stream in streams.inbound {
                            group.addTask { await http1.handle(value: stream, logger: logger) }
                        }
                    }
                }
            } catch {
                // A handshake that failed, a client that left: nothing to answer.
                logger.debug("TLS connection ended", metadata: ["error": "\(error)"])
            }
        }
    }
}

extension HTTPServerBuilder {
    /// HTTPS: HTTP/2 and HTTP/1.1 by ALPN over TLS, each connection's task on its own loop.
    package static func secure(
        tls: TLSConfiguration, http1: HTTP1Channel.Configuration, idleTimeout: TimeAmount, connectionHandlers: @escaping @Sendable () -> [any RemovableChannelHandler],
        streamHandlers: @escaping @Sendable () -> [any RemovableChannelHandler], group: any EventLoopGroup
    ) -> HTTPServerBuilder {
        let executors = EventLoopTaskExecutors(group)
        return .init { responder in
            try SecureConnection(
                tls: tls, http1: HTTP1Channel(responder: responder, configuration: http1), idleTimeout: idleTimeout,
                connectionHandlers: connectionHandlers, streamHandlers: streamHandlers, executors: executors
            )
        }
    }
}

/// Closes the connection when its peer ends its input (an HTTP/2 connection's client).
final class ClosedWhenInputEnds: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
