import HTTPTypes
import Hummingbird

/// With TLS on, every answer tells a browser to reach this host only over HTTPS for a year
/// (`Strict-Transport-Security`), so that a dashboard's session cookie is never offered to a
/// plain-HTTP impostor. Subdomains are left out: they may be another operator's.
package struct StrictTransportSecurityMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    package init() {}

    static let name = HTTPField.Name("Strict-Transport-Security")!
    static let value = "max-age=31536000"

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[Self.name] = Self.value
        return response
    }
}
