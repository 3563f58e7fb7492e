import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `POST /v1/usage` (PROTOCOL §7.2) and `POST /v1/usage/totals` (§9.2): a tracked device's usage,
/// idempotently, with the daily summaries; and the reads of it.
struct UsageController {
    let intake: PostgresUsageIntake
    let reads: PostgresUsageReads
    let keyring: ChangeTokenKeyring
    let clock: any WallClock
    /// Usage older than this is deleted by the retention job, so it is not taken either.
    let retention: TimeInterval

    func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("usage", use: upload)
            .post("usage/totals", use: uploadTotals)
    }

    /// `POST /v1/usage`: a child's sessions, stored once each, with the summaries of the days they touch.
    @Sendable func upload(_ request: Request, context: FamilySyncRequestContext) async throws -> UsageUploadResponse {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .uploadUsage)
        let body = try await request.decode(as: UsageUploadRequest.self, context: context)
        let timeZone = try body.timeZone.map { name throws(FamilySyncError) in try Validation.timeZone(name, field: "timeZone") }
        let (sessions, uncategorised) = try Self.sessions(body.records, caller: caller, now: clock.now(), retention: retention)
        let upload = try await intake.upload(sessions, uncategorised: uncategorised, timeZone: timeZone, child: caller)
        return try UsageUploadResponse(
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
        let (apps, uncategorised) = try Self.totals(body.apps)
        guard DailySummaryCalculator.interval(of: body.date, in: .gmt) != nil else { throw DailySummaryCalculator.notADate("date") }
        let upload = try await intake.uploadTotals(apps, date: body.date, uncategorised: uncategorised, timeZone: timeZone, retention: retention, child: caller)
        return UsageTotalsResponse(
            summary: DailySummaryBody(upload.summary), alerts: upload.alerts.map(AlertBody.init),
            changeToken: try keyring.encode(ChangeToken(of: upload.zone, for: caller, at: upload.sequence))
        )
    }

    /// A report's apps checked as a whole before anything is stored; the `logicalID`s of those
    /// that named no category.
    static func totals(_ bodies: [UsageTotalBody]) throws(FamilySyncError) -> (apps: [DailyTotals.App], uncategorised: Set<String>) {
        guard bodies.count <= DailyTotals.maximumApps else {
            throw .limitExceeded("At most \(DailyTotals.maximumApps) apps a report; this one has \(bodies.count).", field: "apps")
        }
        guard !bodies.isEmpty else { throw .badRequest("apps is empty.", field: "apps") }
        var seen: Set<String> = []
        var uncategorised: Set<String> = []
        let apps = try bodies.enumerated().map { (index, body) throws(FamilySyncError) in
            let field = "apps[\(index)]"
            guard seen.insert(body.logicalID).inserted else { throw .badRequest("A logicalID appears once in a report.", field: "\(field).logicalID") }
            let category = try body.category.map { text throws(FamilySyncError) in
                guard let category = CategoryID(rawValue: text) else {
                    throw .badRequest("category is " + CategoryID.describedForErrors + ".", field: "\(field).category")
                }
                return category
            }
            if category == nil { uncategorised.insert(body.logicalID) }
            let app = DailyTotals.App(
                logicalID: body.logicalID, displayName: body.displayName, bundleIdentifier: body.bundleIdentifier, category: category ?? .other,
                totalSeconds: body.totalSeconds, earnedPoints: body.earnedPoints ?? 0, pickups: body.pickups
            )
            try app.validate(field: field)
            return app
        }
        return (apps, uncategorised)
    }

    func addReadRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
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
        let cursor = try parameters.get("cursor").map { text throws(FamilySyncError) in try Self.cursor(text) }
        let page = try await reads.usage(of: childID, familyID: caller.familyID, from: from, to: to, after: cursor, limit: try request.pageLimit())
        return UsageList(records: page.sessions.map { UsageRecordBody($0, deviceID: childID) }, cursor: page.next.map(Self.cursorText))
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


    static func cursorText(_ cursor: PostgresUsageReads.Cursor) -> String {
        Data((cursor.sessionEnd + "\n" + cursor.recordName).utf8).base64EncodedString()
    }

    static func cursor(_ text: String) throws(FamilySyncError) -> PostgresUsageReads.Cursor {
        guard let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8),
            case let parts = decoded.split(separator: "\n", omittingEmptySubsequences: false), parts.count == 2,
            Instant.parse(String(parts[0])) != nil, parts[1].hasPrefix("usage-")
        else {
            throw .badRequest("The cursor is not one this server gave.", field: "cursor")
        }
        return .init(sessionEnd: String(parts[0]), recordName: String(parts[1]))
    }

    /// The batch checked as a whole before anything is stored: the first bad record is the 400.
    /// The records as sessions, and the ids of those that named no category (the store
    /// categorises them).
    static func sessions(
        _ records: [UsageRecordBody], caller: AuthenticatedDevice, now: Date, retention: TimeInterval
    ) throws(FamilySyncError) -> (sessions: [UsageSession], uncategorised: Set<UUID>) {
        guard records.count <= UsageSession.maximumPerUpload else {
            throw .limitExceeded("At most \(UsageSession.maximumPerUpload) records an upload; this one has \(records.count).", field: "records")
        }
        guard !records.isEmpty else { throw .badRequest("records is empty.", field: "records") }
        var seen: Set<UUID> = []
        var uncategorised: Set<UUID> = []
        let sessions = try records.enumerated().map { (index, body) throws(FamilySyncError) in
            let field = "records[\(index)]"
            if let device = body.deviceID, UUID(uuidString: device) != caller.deviceID {
                throw FamilySyncError(.accessDenied, "A child uploads only its own usage.", field: "\(field).deviceID")
            }
            let id = try Validation.uuid(body.recordID, field: "\(field).recordID")
            guard seen.insert(id).inserted else { throw .badRequest("A recordID appears once in an upload.", field: "\(field).recordID") }
            // A category id (§9.1): a family's own x- one must have its record, which the store
            // checks; none: the store categorises.
            let category = try body.category.map { text throws(FamilySyncError) in
                guard let category = UsageSession.Category(rawValue: text) else {
                    throw .badRequest("category is " + CategoryID.describedForErrors + ".", field: "\(field).category")
                }
                return category
            }
            if category == nil { uncategorised.insert(id) }
            let session = UsageSession(
                recordID: id, logicalID: body.logicalID, displayName: body.displayName, bundleIdentifier: body.bundleIdentifier, category: category ?? .other,
                sessionStart: body.sessionStart, sessionEnd: body.sessionEnd, totalSeconds: body.totalSeconds, earnedPoints: body.earnedPoints ?? 0,
                pickups: body.pickups
            )
            try session.validate(now: now, field: field)
            // It would be deleted at once, and its days' summaries recomputed without the rest.
            guard session.sessionEnd >= now.addingTimeInterval(-retention) else {
                throw .badRequest("The session ended longer ago than usage is kept (\(Int(retention / 86_400)) days).", field: "\(field).sessionEnd")
            }
            // As stored (instants to the millisecond), so that a re-sent record compares equal.
            guard let normalised = UsageSession(fields: session.fields) else { throw .badRequest("The record cannot be stored.", field: field) }
            return normalised
        }
        return (sessions, uncategorised)
    }
}
