import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// The operator's view of the fleet (PROTOCOL §10.1): the weekly tracking report, for the
/// operator token alone. No family's credential opens it (it is not looked up: a device's
/// credential gets the same 401 as any other wrong token), and it names no family.
package struct FleetController {
    let reports: PostgresTrackingReport
    /// nil: no operator token was configured, and the fleet's endpoints answer 404.
    let token: OperatorToken?
    let clock: any WallClock

    package init(reports: PostgresTrackingReport, token: OperatorToken?, clock: any WallClock) {
        self.reports = reports
        self.token = token
        self.clock = clock
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("fleet/tracking-report", use: trackingReport)
    }

    /// `GET /v1/fleet/tracking-report?week=YYYY-Www` (the last whole week by default): JSON, or
    /// with `Accept: text/plain` the text `familysync fleet report` prints.
    @Sendable func trackingReport(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        try authorize(request)
        let weeks = request.uri.queryParameters.getAll("week")
        guard weeks.count <= 1 else { throw FamilySyncError.badRequest("week is given once.", field: "week") }
        let week: ISOWeek
        if let text = weeks.first {
            guard let parsed = ISOWeek(String(text)) else {
                throw FamilySyncError.badRequest("week is an ISO week, YYYY-Www (2026-W48), one the year has, from 0001-W01 to 9999-W51.", field: "week")
            }
            week = parsed
        } else {
            week = ISOWeek.lastComplete(before: clock.now())
        }
        let report = try await reports.report(for: week)
        if request.prefers("text/plain") {
            return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: report.text)))
        }
        return try TrackingReportBody(report).response(from: request, context: context)
    }

    private func authorize(_ request: Request) throws {
        guard let token else {
            throw FamilySyncError.notFound("The fleet's reports are off: the server has no operator token (--operator-token-file).")
        }
        guard let presented = request.bearerToken, token.admits(presented) else {
            throw FamilySyncError(.authenticationRequired, "The operator token is required (Authorization: Bearer …).")
        }
    }
}
