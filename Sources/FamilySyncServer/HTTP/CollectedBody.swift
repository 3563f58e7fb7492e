import Hummingbird
import NIOCore

/// Gathers a body of known, bounded length (the answers this server encodes itself), for the
/// middleware that compresses an answer or keeps it with its idempotency key.
final class CollectedBody: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
