import HTTPTypes
import Hummingbird

/// Names the client behind a trusted proxy (`--trusted-proxies`) in `context.clientAddress`, the
/// key of the per-address limits. A peer that is not trusted is its own client, whatever its
/// `X-Forwarded-For` says: anyone can send the header.
package struct ForwardedClientMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    let proxies: TrustedProxies

    package init(proxies: TrustedProxies) {
        self.proxies = proxies
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard proxies != .none, let peer = context.clientAddress else { return try await next(request, context) }
        var context = context
        context.clientAddress = proxies.client(peer: peer, forwardedFor: request.headers[values: Self.forwardedFor])
        return try await next(request, context)
    }
}
