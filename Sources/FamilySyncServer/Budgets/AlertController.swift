import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// Budget status and alerts (PROTOCOL §9.3–§9.4).
package struct AlertController {
    let alerts: PostgresAlertStore

    package init(alerts: PostgresAlertStore) {
        self.alerts = alerts
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("members/:id/budget-status", use: budgetStatus)
            .get("members/:id/alerts", use: list)
            .post("alerts/:id/dismiss", use: dismiss)
            .post("alerts", use: report)
    }

    /// `POST /v1/alerts`: a threshold a tracked device watches fired; 201 the first time, 200 with
    /// the stored alert when the same report comes again.
    @Sendable func report(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<AlertBody> {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .reportAlert)
        let body = try await request.decode(as: ReportAlertRequest.self, context: context)
        guard body.kind == Alert.Kind.threshold.rawValue else {
            throw FamilySyncError.badRequest("Devices report threshold alerts; budget and tracking alerts are the server's.", field: "kind")
        }
        let category = try body.category.map { text throws(FamilySyncError) in
            guard let category = CategoryID(rawValue: text) else { throw .badRequest("category is " + CategoryID.describedForErrors + ".", field: "category") }
            return category
        }
        let report = Alert.ThresholdReport(clientAlertID: body.clientAlertID, category: category, logicalID: body.logicalID, usedMinutes: body.usedMinutes, message: body.message)
        try report.validate()
        let (alert, created) = try await alerts.report(report, by: caller, as: context.writer)
        return EditedResponse(status: created ? .created : .ok, response: AlertBody(alert))
    }

    /// `GET /v1/members/{id}/budget-status?date=`: each enabled budget against the member's day.
    @Sendable func budgetStatus(_ request: Request, context: FamilySyncRequestContext) async throws -> BudgetStatusResponse {
        let (caller, memberID) = try context.memberUsageReader()
        guard let date = request.uri.queryParameters.get("date"), DailySummaryCalculator.interval(of: date, in: .gmt) != nil else {
            throw DailySummaryCalculator.notADate("date")
        }
        let status = try await alerts.budgetStatus(familyID: caller.familyID, memberID: memberID, date: date)
        return BudgetStatusResponse(date: date, budgets: status.map(BudgetStatusResponse.Entry.init))
    }

    /// `GET /v1/members/{id}/alerts?from=&to=[&includeDismissed=true]`: newest first.
    @Sendable func list(_ request: Request, context: FamilySyncRequestContext) async throws -> AlertList {
        let (caller, memberID) = try context.memberUsageReader()
        let dates = try request.dateRange()
        let includeDismissed: Bool = switch request.uri.queryParameters.get("includeDismissed") {
        case nil, "false": false
        case "true": true
        case let other?: throw FamilySyncError.badRequest("includeDismissed is true or false, not '\(other.prefix(32))'.", field: "includeDismissed")
        }
        let list = try await alerts.alerts(familyID: caller.familyID, memberID: memberID, from: dates.first ?? "", to: dates.last ?? "", includeDismissed: includeDismissed)
        return AlertList(alerts: list.map(AlertBody.init))
    }

    /// `POST /v1/alerts/{id}/dismiss`: the alert with `dismissedAt` set (idempotent).
    @Sendable func dismiss(_ request: Request, context: FamilySyncRequestContext) async throws -> AlertBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .dismissAlert)
        return AlertBody(try await alerts.dismiss(familyID: caller.familyID, alertID: try context.pathID(), by: caller.deviceID, as: context.writer))
    }
}
