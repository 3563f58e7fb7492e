import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `POST /v1/usage` (PROTOCOL §7.2) and `POST /v1/usage/totals` (§9.2): a tracked device's usage,
/// idempotently, with the daily summaries; and the reads of it.
package struct UsageController {
    let intake: PostgresUsageIntake
    let reads: PostgresUsageReads
    let keyring: ChangeTokenKeyring
    let clock: any WallClock
    /// Usage older than this is deleted by the retention job, so it is not taken either.
    let retention: TimeInterval

    package init(
        intake: PostgresUsageIntake, reads: PostgresUsageReads, keyring: ChangeTokenKeyring, clock: any WallClock, retention: TimeInterval
    ) {
        self.intake = intake
        self.reads = reads
        self.keyring = keyring
        self.clock = clock
        self.retention = retention
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("usage", use: upload)
            .post("usage/totals", use: uploadTotals)
    }

    /// `POST /v1/usage`: a child's sessions, stored once each, with the summaries of the days they touch.
    @Sendable func upload(_ request: Request, context: FamilySyncRequestContext) async throws -> UsageUploadResponse {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .uploadUsage)
        let body = try await request.decode(as: UsageUploadRequest.self, context: context)
        let timeZone = try body.timeZone.map { name throws(FamilySyncError) in try Validation.timeZone(name, field: "timeZone") }
        let (sessions, uncategorised) = try body.checkedSessions(of: caller.deviceID, now: clock.now(), retention: retention)
        let upload = try await intake.upload(
            sessions, uncategorised: uncategorised, timeZone: timeZone, retention: retention, child: caller, items: ItemPath { "records[\($0)]" }, as: context.writer
        )
        return UsageUploadResponse(
            accepted: upload.accepted, duplicates: upload.duplicates, summaries: upload.summaries.map(DailySummaryBody.init),
            changeToken: try keyring.encode(ChangeToken(of: upload.zone, for: caller, at: upload.sequence)), alerts: upload.alerts.map(AlertBody.init)
        )
    }

    /// `POST /v1/usage/totals`: a tracked device's running totals for a day; the largest of each
    /// app's totals is kept, and the day's summary comes back.
    @Sendable func uploadTotals(_ request: Request, context: FamilySyncRequestContext) async throws -> UsageTotalsResponse {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .uploadUsage)
        let body = try await request.decode(as: UsageTotalsRequest.self, context: context)
        let timeZone = try body.timeZone.map { name throws(FamilySyncError) in try Validation.timeZone(name, field: "timeZone") }
        let (apps, uncategorised) = try body.checkedApps()
        guard DailySummaryCalculator.interval(of: body.date, in: .gmt) != nil else { throw DailySummaryCalculator.notADate("date") }
        let upload = try await intake.uploadTotals(
            apps, date: body.date, uncategorised: uncategorised, timeZone: timeZone, retention: retention, child: caller, items: ItemPath { "apps[\($0)]" },
            as: context.writer
        )
        return UsageTotalsResponse(
            summary: DailySummaryBody(upload.summary), alerts: upload.alerts.map(AlertBody.init),
            changeToken: try keyring.encode(ChangeToken(of: upload.zone, for: caller, at: upload.sequence))
        )
    }

    package func addReadRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("devices/:id/summaries", use: summaries)
            .get("devices/:id/usage", use: listUsage)
            .get("devices/:id/report", use: report)
    }

    /// `GET /v1/devices/{id}/summaries?from=&to=`: a child's days, empty ones included.
    @Sendable func summaries(_ request: Request, context: FamilySyncRequestContext) async throws -> SummaryList {
        let (caller, childID) = try Self.reader(context)
        let dates = try request.dateRange()
        let stored = try await reads.summaries(of: childID, familyID: caller.familyID, dates: dates)
        return SummaryList(summaries: dates.map { date in
            stored[date].map(DailySummaryBody.init) ?? DailySummaryBody(emptyDay: date, deviceID: childID)
        })
    }

    /// `GET /v1/devices/{id}/usage?from=&to=[&cursor=&limit=]`: a child's sessions, a page at a time.
    @Sendable func listUsage(_ request: Request, context: FamilySyncRequestContext) async throws -> UsageList {
        let (caller, childID) = try Self.reader(context)
        let parameters = request.uri.queryParameters
        func instant(_ name: String) throws(FamilySyncError) -> Date {
            guard let text = parameters.get(name), let date = Instant.parse(text) else {
                throw .badRequest("\(name) is an RFC 3339 instant.", field: name)
            }
            return date
        }
        let from = try instant("from"), to = try instant("to")
        guard from < to else { throw FamilySyncError.badRequest("to is after from.", field: "to") }
        let cursor = try parameters.get("cursor").map { text throws(FamilySyncError) in try UsageSession.PageCursor(text: text) }
        let page = try await reads.usage(of: childID, familyID: caller.familyID, from: from, to: to, after: cursor, limit: try request.pageLimit())
        return UsageList(records: page.sessions.map { UsageRecordBody($0, deviceID: childID) }, cursor: page.next?.text)
    }

    /// `GET /v1/devices/{id}/report?from=&to=&granularity=`: totals by day or week, JSON or CSV.
    @Sendable func report(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let (caller, childID) = try Self.reader(context)
        let dates = try request.dateRange()
        let granularity = try request.granularity()
        let stored = try await reads.summaries(of: childID, familyID: caller.familyID, dates: dates)
        let report = UsageReport(summaries: stored, dates: dates, granularity: granularity)
        if request.prefers("text/csv") { return .csv(report.csv) }
        return try ReportBody(report).response(from: request, context: context)
    }

    static func reader(_ context: FamilySyncRequestContext) throws(FamilySyncError) -> (AuthenticatedDevice, UUID) {
        let caller = try context.requireDevice()
        let childID = try context.pathID()
        try AccessPolicy.check(caller, .readUsage(child: childID))
        return (caller, childID)
    }
}
