import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Hummingbird

/// `GET /health/live` (the process answers) and `GET /health/ready` (the database answers and is migrated).
package struct ProbeController {
    let readiness: DatabaseReadiness

    package init(readiness: DatabaseReadiness) {
        self.readiness = readiness
    }

    package func addRoutes(to router: some RouterMethods<FamilySyncRequestContext>) {
        router.get("/health/live", use: live)
            .get("/health/ready", use: ready)
    }

    @Sendable func live(_ request: Request, context: FamilySyncRequestContext) -> ProbeStatus {
        ProbeStatus(status: "live")
    }

    @Sendable func ready(_ request: Request, context: FamilySyncRequestContext) async throws -> ProbeStatus {
        ProbeStatus(status: "ready", schemaVersion: try await readiness.check())
    }
}
