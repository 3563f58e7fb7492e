import FamilySyncPostgres
import Hummingbird

/// The request's database leases prefer its connection's event loop (`LoopBoundPool`), so that
/// its statements, their answers and its response share a thread where they can.
package struct PreferredLoopMiddleware: RouterMiddleware {
    package init() {}

    package typealias Context = FamilySyncRequestContext

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let loop = context.connection?.eventLoop else { return try await next(request, context) }
        return try await LoopBoundPool.$preferredLoop.withValue(loop) { try await next(request, context) }
    }
}
