import FamilySyncApp
import FamilySyncServer
import Hummingbird

/// The parent's web dashboard under `/app`, as a module of the server: `familysync serve`, the
/// tests' server and the benchmarks mount it (`buildApplication(…, modules: [WebDashboard()])`).
/// Its middleware goes on the whole router, so that every answer under `/app`, an unknown path's
/// and a refused body's too, is a page with the dashboard's headers; its routes read and act
/// through the API's own routes, answered in process.
package struct WebDashboard: RouteModule {
    let pages = WebPages()

    package init() {}

    package func addMiddleware(to router: MethodAwareRouter<FamilySyncRequestContext>) {
        router.add(middleware: WebSecurityHeadersMiddleware(pages: pages, routes: router.table))
    }

    package func addRoutes(
        to router: MethodAwareRouter<FamilySyncRequestContext>, api: APIResponder, configuration: ServerConfiguration, dependencies: ServerDependencies
    ) {
        // Served over TLS, or behind a proxy that terminates it.
        let secure = configuration.tls != nil || configuration.publicURL?.lowercased().hasPrefix("https://") ?? false
        WebController(api: api, pages: pages, cookies: WebCookies(
                secure: secure, sessions: dependencies.dashboardSessions, formKey: { try dependencies.derivedKey("FamilySync dashboard form token") },
                sealKey: { try dependencies.derivedKey("FamilySync dashboard session seal") }
            ), clock: dependencies.clock, publicURL: PublicURL(configuration))
            .addRoutes(to: router)
    }
}
