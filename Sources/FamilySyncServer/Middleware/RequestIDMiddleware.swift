import HTTPTypes
import Hummingbird
import Synchronization

/// Gives every response an `X-Request-Id`: the client's when it sent a usable one (1–128 visible
/// ASCII characters), else a new one, unique to the request. The id is in every log line of the request
/// (`RequestLogMetadata`).
package struct RequestIDMiddleware: RouterMiddleware {
    package init() {}

    package typealias Context = FamilySyncRequestContext

    static let headerName = HTTPField.Name("X-Request-Id")!

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let requestID = request.headers[Self.headerName].flatMap(Self.usable) ?? Self.make()
        context.requestID = requestID
        var response = try await RequestLogMetadata.$requestID.withValue(requestID) { try await next(request, context) }
        response.headers[Self.headerName] = requestID
        return response
    }

    static func usable(_ value: String) -> String? {
        guard (1...128).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else { return nil }
        return value
    }

    /// 32 hex digits: 64 random bits drawn once for the process, then the count of ids it has
    /// made. Unique without a system call: two draws of `SystemRandomNumberGenerator` a request
    /// were two `getrandom` calls, 1 % of a quiet heartbeat's CPU. An id is no secret: the
    /// client sees it and the logs keep it.
    static func make() -> String {
        let count = made.wrappingAdd(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: 32) { buffer in
            writeHex(processPrefix, into: buffer, at: 0)
            writeHex(count, into: buffer, at: 16)
            return 32
        }
    }

    private static let processPrefix = UInt64.random(in: .min ... .max)
    private static let made = Atomic<UInt64>(0)

    private static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        let digits: StaticString = "0123456789abcdef"
        for index in 0..<16 {
            buffer[start + index] = digits.utf8Start[Int((value >> UInt64(60 - 4 * index)) & 0xF)]
        }
    }
}
