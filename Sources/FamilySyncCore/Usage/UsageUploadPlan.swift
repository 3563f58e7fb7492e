import Foundation

/// What an upload of sessions (§7.2) stores, decided from what the zone holds: the sessions the
/// device left uncategorised are put in the family's category for their app (its configuration,
/// else the built-in table of its bundle id, else `other`), a session stored before keeps the
/// category it was stored with, one stored with the same content is a duplicate, and one stored
/// with other content refuses the whole upload (409 naming it).
public enum UsageUploadPlan {
    /// The sessions to store, in the order sent; throws `CONFLICT` for the first sent again with
    /// other content. `configured` is the device's configured category of each app.
    public static func fresh(
        _ sessions: [UsageSession], uncategorised: Set<UUID>, configured: [String: CategoryID], stored: [String: UsageSession]
    ) throws(FamilySyncError) -> [UsageSession] {
        var fresh: [UsageSession] = []
        for (index, var session) in sessions.enumerated() {
            if uncategorised.contains(session.recordID) {
                session.category = stored[session.recordName]?.category
                    ?? CategoryResolver.category(named: nil, logicalID: session.logicalID, bundleIdentifier: session.bundleIdentifier, configured: configured)
            }
            guard let existing = stored[session.recordName] else {
                fresh.append(session)
                continue
            }
            guard existing == session else {
                throw FamilySyncError(.conflict, "Record \(session.recordID.lowercased) was uploaded before with other content.", field: "records[\(index)]")
            }
        }
        return fresh
    }
}

extension DailyTotals {
    /// A day's totals after a report: `maximumApps` at most (413 naming `apps`).
    public static func checkAppCount(_ after: DailyTotals) throws(FamilySyncError) {
        guard after.apps.count <= maximumApps else {
            throw FamilySyncError.limitExceeded("A day holds the totals of at most \(maximumApps) apps; this report would make \(after.apps.count).", field: "apps")
        }
    }
}
