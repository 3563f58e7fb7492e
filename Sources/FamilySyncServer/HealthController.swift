import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Hummingbird

/// `GET /health/live` (the process answers) and `GET /health/ready` (the database answers and is migrated).
struct HealthController {
    let readiness: DatabaseReadiness

    func addRoutes(to router: some RouterMethods<FamilySyncRequestContext>) {
        router.get("/health/live") { _, _ in
            HealthStatus(status: "live")
        }
        router.get("/health/ready") { _, _ in
            let version = try await readiness.check()
            return HealthStatus(status: "ready", schemaVersion: version)
        }
    }
}
