import FamilySyncCore
import FamilySyncPostgres
import Hummingbird

/// Counts a parent's reads of the family's data (PROTOCOL §15.4): per day, member and route, in
/// this instance's `ReadTally`, not one row a read. Inside `AuthenticationMiddleware`, on the
/// routes that answer with a child's data; a read that failed is not counted.
struct ReadCountMiddleware: RouterMiddleware {
    typealias Context = FamilySyncRequestContext

    let tally: ReadTally
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
        tally.count(AuditReadsKey(familyID: device.familyID, date: DailySummaryCalculator.day(of: clock.now(), in: .gmt), readerMemberID: member, route: route))
        return response
    }
}
