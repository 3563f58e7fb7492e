import FamilySyncCore
import HTTPTypes
import Hummingbird

/// Every dashboard answer, errors included: a Content-Security-Policy that allows no inline
/// script or style and nothing from another origin, no framing, no sniffing, no referrer, and
/// no caching (pages show a family's data). A failure is a page with §1.1's code and reason, at
/// §1.1's status, not the API's JSON.
struct WebSecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = FamilySyncRequestContext

    let pages: WebPages

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // As the API's error middleware maps it, as a page.
            let failure = ErrorMiddleware.translate(error, request: request)
            if failure.code == .internalError { context.logger.error("dashboard request failed", metadata: ["error": "\(String(reflecting: error))"]) }
            response = pages.errorPage(failure)
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

extension HTTPField.Name {
    static let contentSecurityPolicy = Self("Content-Security-Policy")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
