import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// On an HTTP/2 stream: drops the fields HTTP/2 forbids from a response's head (RFC 9113
/// §8.2.2), which the server sets for HTTP/1.1 (`Connection: close` after a refused body or a
/// dashboard's live poll). NIOHTTP2 refuses a head that carries one, so the answer would be lost.
package final class ConnectionFieldsDropped: ChannelOutboundHandler, RemovableChannelHandler, Sendable {
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    package init() {}

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data),
            head.headerFields.contains(where: { Self.connectionSpecific.contains($0.name) })
        else { return context.write(data, promise: promise) }
        head.headerFields.removeAll { Self.connectionSpecific.contains($0.name) }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    static let connectionSpecific: Set<HTTPField.Name> = [
        .connection, .transferEncoding, .upgrade, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!,
    ]
}
