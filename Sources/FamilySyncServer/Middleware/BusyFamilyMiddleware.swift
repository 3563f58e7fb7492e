import FamilySyncCore
import FamilySyncPostgres
import Hummingbird

/// A busy family's write refused before its body is read (`BusyFamilyRefusal`): right after
/// authentication names the family, before the idempotency key is looked up. Reads, and every
/// request of a family whose line has room, pass at the cost of a look at the line.
package struct BusyFamilyMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    let families: FamilyWriteQueue

    package init(families: FamilyWriteQueue) {
        self.families = families
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The cheap looks first: most requests are reads, and most families' lines have room.
        if request.method != .get, let device = context.device, families.isFull(device.familyID),
            BusyFamilyRefusal.routes.contains(context.route(of: request))
        {
            throw TryAgainReason.familyBusy.error
        }
        return try await next(request, context)
    }
}
