import FamilySyncCore
import FamilySyncPostgres
import Hummingbird

/// Counts a parent's reads of the family's data (PROTOCOL §15.4): per day, member and route, not
/// one row a read. Inside `AuthenticationMiddleware`, on the routes that answer with a child's
/// data; a read that failed is not counted, and a count that fails does not fail the read.
struct ReadCountMiddleware: RouterMiddleware {
    typealias Context = FamilySyncRequestContext

    let audit: PostgresAuditStore
    let clock: any WallClock

    /// The routes whose answers are a member's or a child device's data, as the router names them.
    static let counted: Set<String> = [
        "GET /v1/devices/{id}/commands", "GET /v1/devices/{id}/health", "GET /v1/devices/{id}/report", "GET /v1/devices/{id}/shield-state",
        "GET /v1/devices/{id}/summaries", "GET /v1/devices/{id}/usage", "GET /v1/members/{id}/alerts", "GET /v1/members/{id}/budget-status",
        "GET /v1/members/{id}/report", "GET /v1/members/{id}/summaries", "GET /v1/zones/{zone}/changes", "POST /v1/zones/{zone}/records/lookup",
        "POST /v1/zones/{zone}/records/query", "POST /v1/changes/zones", "GET /v1/families/me/export", "GET /v1/members/{id}/export",
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard let device = context.device, device.role == .parent, let member = device.memberID, (200..<300).contains(response.status.code) else { return response }
        let route = "\(request.method) \(context.endpointPath ?? "")"
        guard Self.counted.contains(route) else { return response }
        do {
            try await audit.countRead(familyID: device.familyID, readerMemberID: member, route: route, date: DailySummaryCalculator.day(of: clock.now(), in: .gmt))
        } catch {
            context.logger.warning("A parent's read was not counted", metadata: ["error": "\(DatabaseErrorTranslation.describeForOperator(error))"])
        }
        return response
    }
}
