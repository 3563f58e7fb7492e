import FamilySyncCore
import FamilySyncServer
import Hummingbird
import Synchronization

/// Routes another target serves beside the API, mounted by whoever builds the application
/// (`buildApplication(…, modules:)`): the web dashboard (`FamilySyncWeb`'s `WebDashboard`), which
/// `familysync serve`, the tests' server and the benchmarks mount. A controller in Hummingbird's
/// manner (`addRoutes(to:)`), with the one more place a module of the whole router needs: its
/// middleware, where the server keeps room for it.
package protocol RouteModule: Sendable {
    /// Middleware on the whole router, added just inside `ErrorMiddleware` and outside the body
    /// limit, before any route: it sees every request, the API's too, and what the router answers
    /// for a path it does not serve. `router.table` fills in as routes are added.
    func addMiddleware(to router: MethodAwareRouter<FamilySyncRequestContext>)

    /// The module's routes, added after the API's. `api` answers requests with the complete
    /// router, middleware and all, once it is built.
    func addRoutes(
        to router: MethodAwareRouter<FamilySyncRequestContext>, api: APIResponder, configuration: FamilySyncServer.ServerConfiguration, dependencies: ServerDependencies
    )
}
