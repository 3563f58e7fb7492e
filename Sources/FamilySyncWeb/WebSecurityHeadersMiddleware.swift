import FamilySyncCore
import FamilySyncServer
import HTTPTypes
import Hummingbird

/// Every answer under `/app`, errors included: a Content-Security-Policy that allows no inline
/// script or style and nothing from another origin (the one script, `/app/live.js`, fetches
/// from this origin only), no framing, no sniffing, no referrer, and
/// no caching (pages show a family's data). A failure is a page with §1.1's code and reason, at
/// §1.1's status, not the API's JSON: an unknown path (404) and a method its path does not serve
/// (405, with `Allow`) as well. It sits on the whole router, just inside `ErrorMiddleware`
/// (`WebDashboard.addMiddleware`), so that no middleware below it answers a dashboard path with
/// JSON; other paths pass through.
struct WebSecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = FamilySyncRequestContext

    let pages: WebPages
    /// What the router serves, to tell a wrong method (405) from a wrong path (404).
    let routes: RouteTable

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// `/app` and every path under it.
    static func isDashboard(_ path: String) -> Bool {
        path == "/app" || path.hasPrefix("/app/")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.isDashboard(request.uri.path) else { return try await next(request, context) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // The router found no route for this method: as `ErrorMiddleware` answers it, as a page.
            if let (pattern, allowed) = routes.match(request.uri.path) {
                context.coreContext.endpointPath.value = pattern
                let list = allowed.map(\.rawValue).joined(separator: ", ")
                let failure = FamilySyncError(.methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path); allowed: \(list).")
                response = pages.errorPage(failure, strings: Self.strings(request), headers: [.allow: list])
            } else {
                response = pages.errorPage(.notFound("No page at \(request.uri.path)."), strings: Self.strings(request))
            }
        } catch {
            // As the API's error middleware maps it, as a page.
            let failure = FamilySyncError(answering: error, to: request)
            if failure.code == .internalError { context.logger.error("dashboard request failed", metadata: ["error": "\(String(reflecting: error))"]) }
            response = pages.errorPage(failure, strings: Self.strings(request))
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

extension WebSecurityHeadersMiddleware {
    /// The failure page's language: the request's, as its page's would have been.
    static func strings(_ request: Request) -> WebStrings {
        WebStrings(WebSession.language(request, cookies: WebCookies.read(request)))
    }
}

extension HTTPField.Name {
    static let contentSecurityPolicy = Self("Content-Security-Policy")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}
