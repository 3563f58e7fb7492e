import FamilySyncCore
import HTTPTypes
import Hummingbird
import Synchronization

/// Hummingbird answers a known path asked with a method it does not serve as "not found". This
/// router records, as routes are added, which methods each path serves; `ErrorMiddleware` asks the
/// record when the router finds nothing, and answers `405 METHOD_NOT_ALLOWED` with `Allow` for a
/// known path, whatever the method (TRACE, QUERY, …).
package final class MethodAwareRouter<Context: RequestContext>: RouterMethods {
    package let router: Router<Context>
    package let table: RouteTable

    package init(_ router: Router<Context>, table: RouteTable) {
        self.router = router
        self.table = table
    }

    @discardableResult
    package func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == Context {
        table.add(path.description, method: method)
        router.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult
    package func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}
