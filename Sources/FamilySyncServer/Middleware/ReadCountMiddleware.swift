import FamilySyncCore
import FamilySyncPostgres
import Hummingbird

/// Counts a parent's reads of the family's data (PROTOCOL §15.4): per day, member and route, in
/// this instance's `ReadTally`, not one row a read. Inside `AuthenticationMiddleware`, on the
/// routes that answer with a child's data; a read that failed is not counted.
package struct ReadCountMiddleware: RouterMiddleware {
    package typealias Context = FamilySyncRequestContext

    let tally: ReadTally
    let clock: any WallClock

    package init(tally: ReadTally, clock: any WallClock) {
        self.tally = tally
        self.clock = clock
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard let device = context.device,
            let key = AuditReadsKey(route: "\(request.method) \(context.endpointPath ?? "")", reader: device, status: Int(response.status.code), at: clock.now())
        else { return response }
        tally.count(key)
        return response
    }
}
