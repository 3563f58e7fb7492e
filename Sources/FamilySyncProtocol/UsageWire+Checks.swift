import FamilySyncCore
import Foundation

// An upload's shape checked whole, before anything is read or stored (§7.2): its size, each
// record or app once, each valid, a category named or left to the store.

extension UsageUploadRequest {
    /// The batch checked as a whole before anything is stored: the first bad record is the 400.
    /// The records as sessions, and the ids of those that named no category (the store
    /// categorises them).
    public func checkedSessions(of device: UUID, now: Date, retention: TimeInterval) throws(FamilySyncError) -> (sessions: [UsageSession], uncategorised: Set<UUID>) {
        guard records.count <= UsageSession.maximumPerUpload else {
            throw .limitExceeded("At most \(UsageSession.maximumPerUpload) records an upload; this one has \(records.count).", field: "records")
        }
        guard !records.isEmpty else { throw .badRequest("records is empty.", field: "records") }
        var seen: Set<UUID> = []
        var uncategorised: Set<UUID> = []
        let sessions = try records.enumerated().map { (index, body) throws(FamilySyncError) in
            let field = "records[\(index)]"
            if let deviceID = body.deviceID, UUID(uuidString: deviceID) != device {
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
            try RetentionSettings.checkKept([session.sessionEnd], server: retention, familyDays: nil, now: now) { _ in "\(field).sessionEnd" }
            // As stored (instants to the millisecond), so that a re-sent record compares equal.
            guard let normalised = UsageSession(fields: session.fields) else { throw .badRequest("The record cannot be stored.", field: field) }
            return normalised
        }
        return (sessions, uncategorised)
    }
}

extension UsageTotalsRequest {
    /// A report's apps checked as a whole before anything is stored; the `logicalID`s of those
    /// that named no category.
    public func checkedApps() throws(FamilySyncError) -> (apps: [DailyTotals.App], uncategorised: Set<String>) {
        let bodies = apps
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
}
