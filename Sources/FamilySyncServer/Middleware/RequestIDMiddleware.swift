import HTTPTypes
import Hummingbird

/// Gives every response an `X-Request-Id`: the client's when it sent a usable one (1–128 visible
/// ASCII characters), else a new random one. The id is in every log line of the request
/// (`RequestLogMetadata`).
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = FamilySyncRequestContext

    static let headerName = HTTPField.Name("X-Request-Id")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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

    /// 128 random bits as hex.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
