import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `POST /v1/usage` (PROTOCOL §7.2): a child's usage, idempotently, with the daily summaries.
struct UsageController {
    let usage: PostgresUsageStore
    let keyring: ChangeTokenKeyring
    let clock: any WallClock

    func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("usage") { request, context in
            let caller = try context.requireDevice()
            try AccessPolicy.check(caller, .uploadUsage)
            let body = try await request.decodeJSON(as: UsageUploadRequest.self, context: context)
            let timeZone = try body.timeZone.map { name throws(FamilySyncError) in try Validation.timeZone(name, field: "timeZone") }
            let sessions = try Self.sessions(body.records, caller: caller, now: clock.now())
            let upload = try await usage.upload(sessions, timeZone: timeZone, child: caller)
            return try JSONResponse(UsageUploadResponse(
                accepted: upload.accepted, duplicates: upload.duplicates, summaries: upload.summaries.map(DailySummaryBody.init),
                changeToken: try keyring.encode(ZoneController.token(caller, upload.zone, upload.sequence))
            ))
        }
    }

    /// The batch checked as a whole before anything is stored: the first bad record is the 400.
    static func sessions(_ records: [UsageRecordBody], caller: AuthenticatedDevice, now: Date) throws(FamilySyncError) -> [UsageSession] {
        guard records.count <= UsageSession.maximumPerUpload else {
            throw .limitExceeded("At most \(UsageSession.maximumPerUpload) records an upload; this one has \(records.count).", field: "records")
        }
        guard !records.isEmpty else { throw .badRequest("records is empty.", field: "records") }
        var seen: Set<UUID> = []
        return try records.enumerated().map { (index, body) throws(FamilySyncError) in
            let field = "records[\(index)]"
            if let device = body.deviceID, UUID(uuidString: device) != caller.deviceID {
                throw FamilySyncError(.accessDenied, "A child uploads only its own usage.", field: "\(field).deviceID")
            }
            let id = try Validation.uuid(body.recordID, field: "\(field).recordID")
            guard seen.insert(id).inserted else { throw .badRequest("A recordID appears once in an upload.", field: "\(field).recordID") }
            guard let category = UsageSession.Category(rawValue: body.category) else {
                throw .badRequest("category is learning or reward.", field: "\(field).category")
            }
            let session = UsageSession(
                recordID: id, logicalID: body.logicalID, displayName: body.displayName, bundleIdentifier: body.bundleIdentifier, category: category,
                sessionStart: body.sessionStart, sessionEnd: body.sessionEnd, totalSeconds: body.totalSeconds, earnedPoints: body.earnedPoints ?? 0
            )
            try session.validate(now: now, field: field)
            // As stored (instants to the millisecond), so that a re-sent record compares equal.
            guard let normalised = UsageSession(fields: session.fields) else { throw .badRequest("The record cannot be stored.", field: field) }
            return normalised
        }
    }
}
