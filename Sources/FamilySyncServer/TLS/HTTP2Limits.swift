import NIOCore
import NIOHTTP2

/// What one HTTP/2 connection may ask of the server (PROTOCOL §1.3, "HTTP/2"), advertised in the
/// server's first SETTINGS frame and enforced by NIOHTTP2. A device needs two or three streams at
/// once (its held poll, a write, a push registration); a parent's browser a held poll a tab.
package enum HTTP2Limits {
    /// Streams a client may have open at once; the next is refused (`REFUSED_STREAM`) and may be
    /// sent again when one ends.
    package static let concurrentStreams = 100
    /// The largest header block, decoded: a larger one ends its stream.
    package static let headerListBytes = 16_384
    /// How much of a request body a stream may send before the server has read it (RFC 9113's
    /// initial window): a stream's buffered body is bounded by it.
    package static let streamWindowBytes = 65_535
    /// The same for all of a connection's streams together.
    package static let connectionWindowBytes = 1 << 20
    /// A frame's largest payload (RFC 9113's minimum, the default).
    package static let frameBytes = 16_384
    /// CONTINUATION frames in a row before the connection is closed (an endless header block).
    package static let continuationFrames = 5

    package static var configuration: NIOHTTP2Handler.Configuration {
        var configuration = NIOHTTP2Handler.Configuration()
        configuration.connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: concurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: headerListBytes),
            HTTP2Setting(parameter: .initialWindowSize, value: streamWindowBytes),
            HTTP2Setting(parameter: .maxFrameSize, value: frameBytes),
        ]
        configuration.connection.maximumSequentialContinuationFrames = continuationFrames
        configuration.connection.targetWindowSize = connectionWindowBytes
        configuration.stream.targetWindowSize = streamWindowBytes
        return configuration
    }
}
