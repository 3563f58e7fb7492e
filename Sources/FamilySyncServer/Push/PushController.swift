import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `PUT|DELETE /v1/devices/me/push` (PROTOCOL §12): where APNs reaches this device.
package struct PushController {
    let pushes: PostgresPushStore

    package init(pushes: PostgresPushStore) {
        self.pushes = pushes
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.put("devices/me/push", use: register)
            .delete("devices/me/push", use: unregister)
    }

    @Sendable func register(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .registerPush)
        let body = try await request.decode(as: PushRegistrationRequest.self, context: context)
        let registration = try PushRegistration.validated(provider: body.provider, token: body.token, topic: body.topic, environment: body.environment)
        try await pushes.register(registration, for: caller)
        return Response(status: .noContent)
    }

    @Sendable func unregister(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .registerPush)
        try await pushes.unregister(caller)
        return Response(status: .noContent)
    }
}
