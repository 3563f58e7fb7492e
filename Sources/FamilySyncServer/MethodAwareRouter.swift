import FamilySyncCore
import HTTPTypes
import Hummingbird

/// Hummingbird answers a known path asked with an unknown method as "not found". This router
/// remembers which methods each path serves, and `addMethodNotAllowedRoutes()` then answers the
/// others `405 METHOD_NOT_ALLOWED` with an `Allow` header.
final class MethodAwareRouter<Context: RequestContext>: RouterMethods {
    let router: Router<Context>
    private var methodsByPath: [String: (path: RouterPath, methods: Set<HTTPRequest.Method>)] = [:]
    private var order: [String] = []

    init(_ router: Router<Context>) {
        self.router = router
    }

    @discardableResult
    func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == Context {
        let key = path.description
        if methodsByPath[key] == nil {
            methodsByPath[key] = (path, [])
            order.append(key)
        }
        methodsByPath[key]?.methods.insert(method)
        router.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult
    func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }

    /// Every path with the methods it serves (not counting the 405 answers), in the order added.
    var routes: [(path: String, methods: Set<HTTPRequest.Method>)] {
        order.compactMap { key in methodsByPath[key].map { (key, $0.methods) } }
    }

    /// Call after every route is added.
    func addMethodNotAllowedRoutes() {
        let candidates: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]
        for key in order {
            guard let entry = methodsByPath[key] else { continue }
            let allowed = candidates.filter(entry.methods.contains).map(\.rawValue).joined(separator: ", ")
            for method in candidates where !entry.methods.contains(method) {
                router.on(entry.path, method: method) { request, _ -> Response in
                    FamilySyncError(.methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path); allowed: \(allowed).")
                        .response(headers: [.allow: allowed])
                }
            }
        }
    }
}
