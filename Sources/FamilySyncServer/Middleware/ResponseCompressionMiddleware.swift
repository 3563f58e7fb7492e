import CompressNIO
import Hummingbird
import NIOCore

/// `Content-Encoding: gzip` for clients that accept it (RFC 9110 §12.5.3), on answers of at least
/// `minimumBytes` whose length is known: a full sync's pages repeat every record's metadata, and
/// gzip takes a 1,000-record page to about a sixth of its size. Small answers (a poll, "nothing
/// new") go as they are: there the work costs more than the bytes. Brotli is not offered: no
/// package on the list implements it.
package struct ResponseCompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    var minimumBytes = 1024
    /// zlib's level 4: most of level 6's ratio on JSON, for about half the time.
    var level: Int32 = 4

    package init(level: Int32 = 4) {
        self.level = level
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        // The header is parsed last: most answers (a poll's, a heartbeat's, nothing new) are too
        // small to compress, and parsing it was 1–2 % of a device-day's requests.
        guard request.method != .head, response.headers[.contentEncoding] == nil,
            let length = response.body.contentLength, length >= minimumBytes,
            AcceptedEncodings(request.headers[values: .acceptEncoding]).accepts("gzip")
        else { return response }
        let collected = CollectedBody()
        try await response.body.write(collected)
        var plain = collected.buffer
        let compressed = try plain.compress(with: .gzip(configuration: .init(compressionLevel: level)), allocator: ByteBufferAllocator())
        response.headers[.contentEncoding] = "gzip"
        response.headers[values: .vary].append("Accept-Encoding")
        response.headers[.contentLength] = nil
        response.body = ResponseBody(byteBuffer: compressed)
        return response
    }
}
