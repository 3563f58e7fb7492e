import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `GET /v1/devices/{id}/shield-state?at=` (PROTOCOL §11): what a device shields at an instant,
/// for its parents ("Games shielded until 07:00") and for the device itself.
package struct ShieldController {
    let shields: PostgresShieldStore
    let clock: any WallClock

    package init(shields: PostgresShieldStore, clock: any WallClock) {
        self.shields = shields
        self.clock = clock
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("devices/:id/shield-state", use: state)
    }

    @Sendable func state(_ request: Request, context: FamilySyncRequestContext) async throws -> ShieldStateBody {
        let caller = try context.requireDevice()
        let deviceID = try context.pathID()
        try AccessPolicy.check(caller, .readUsage(child: deviceID))
        var at = clock.now()
        if let text = request.uri.queryParameters.get("at") {
            guard let instant = Instant.parse(String(text)) else { throw FamilySyncError.badRequest("at is an RFC 3339 instant.", field: "at") }
            at = instant
        }
        let (state, blocked) = try await shields.shieldState(of: deviceID, familyID: caller.familyID, at: at)
        return ShieldStateBody(state, deviceBlocked: blocked.wholeDevice)
    }
}
