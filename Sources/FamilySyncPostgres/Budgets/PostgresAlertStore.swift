import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// Budgets' status and alerts (PROTOCOL §9.3–§9.4), read from and written into members' zones.
/// Every query is bounded by the caller's family; a member of another family is not found.
public struct PostgresAlertStore: Sendable {
    let database: Database
    let changeLog: ChangeLog
    let clock: any WallClock
    let logger: Logger

    /// `changeLog`: the one every store writes through (`ServerDependencies` makes it).
    public init(changeLog: ChangeLog, clock: any WallClock, logger: Logger) {
        self.database = changeLog.database
        self.changeLog = changeLog
        self.clock = clock
        self.logger = logger
    }

    /// Every enabled budget of the member against its day `date` (each device's day is its own
    /// time zone's), in one snapshot.
    public func budgetStatus(familyID: UUID, memberID: UUID, date: String) async throws -> [BudgetStatus] {
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            try await MemberRows.checkLive(memberID, of: familyID, on: connection, logger: logger)
            let budgets = try await RecordRow.fields(ofType: RecordTypeName.budget, inZone: Member.zoneName(of: memberID), family: familyID, on: connection, logger: logger)
                .compactMap(Budget.init(fields:))
            let day = try await MemberRows.days(familyID: familyID, memberID: memberID, dates: [date], on: connection, logger: logger)
            return BudgetEvaluation.status(of: budgets, date: date, byCategory: day.first?.secondsByCategory ?? [:])
        }
    }

    /// The member's alerts of the days `from`…`to`, newest first; dismissed ones only if asked.
    public func alerts(familyID: UUID, memberID: UUID, from: String, to: String, includeDismissed: Bool) async throws -> [Alert] {
        let logger = logger
        return try await database.inSnapshot(logger: logger) { connection in
            try await MemberRows.checkLive(memberID, of: familyID, on: connection, logger: logger)
            // Only the days asked for: a member's alerts add up over the year.
            let alerts = try await connection.rows(
                """
                SELECT fields FROM records
                WHERE family_id = \(familyID) AND zone_name = \(Member.zoneName(of: memberID)) AND record_type = '\(unescaped: RecordTypeName.alert)' AND NOT deleted
                  AND fields ->> 'date' >= \(from) AND fields ->> 'date' <= \(to)
                """,
                logger: logger
            ).map { try $0.decode(RecordFields.self).value }.compactMap(Alert.init(fields:))
            return alerts.filter { includeDismissed || $0.dismissedAt == nil }
                .sorted { ($0.createdAt, $0.alertID.uuidString) > ($1.createdAt, $1.alertID.uuidString) }
        }
    }

    /// Marks an alert of the family dismissed (once: dismissing it again changes nothing).
    public func dismiss(familyID: UUID, alertID: UUID, by parent: UUID, as writer: ChangeWriter) async throws -> Alert {
        let logger = logger
        let now = clock.now()
        return try await changeLog.write(family: familyID, as: writer) { family in
            let rows = try await family.connection.rows(
                """
                SELECT zone_name, \(unescaped: RecordRow.columns) FROM records
                WHERE family_id = \(familyID) AND record_name = \(Alert.recordName(alertID)) AND record_type = '\(unescaped: RecordTypeName.alert)' AND NOT deleted
                FOR UPDATE
                """,
                logger: logger
            )
            let found = try rows.map { row in (try row.makeRandomAccess()["zone_name"].decode(String.self), try RecordRow.decode(row)) }
            guard let (zone, record) = found.first, let dismissal = Alert.dismissing(record, by: parent, at: now) else {
                throw FamilySyncError.notFound("No such alert.")
            }
            if let write = dismissal.write { try await family.commit([write], into: zone) }
            return dismissal.alert
        }
    }

    /// A threshold alert a tracked device reports (§9.4), in its member's zone, on the device's
    /// local day: made once; the same report again answers the stored alert (`created` false);
    /// another report under the same `clientAlertID` is `CONFLICT`.
    public func report(_ report: Alert.ThresholdReport, by device: AuthenticatedDevice, as writer: ChangeWriter) async throws -> (alert: Alert, created: Bool) {
        guard let member = device.memberID else { throw FamilySyncError(.accessDenied, "This device has no member yet.") }
        let logger = logger
        let now = clock.now()
        return try await changeLog.write(family: device.familyID, as: writer) { family in
            let connection = family.connection
            let zone = Member.zoneName(of: member)
            let id = Alert.thresholdAlertID(device: device.deviceID, clientAlertID: report.clientAlertID)
            let stored = try await connection.rows(
                "SELECT fields FROM records WHERE family_id = \(device.familyID) AND zone_name = \(zone) AND record_name = \(Alert.recordName(id))",
                logger: logger
            ).map { try $0.decode(RecordFields.self).value }.first.flatMap(Alert.init(fields:))
            if let stored {
                guard report.isReported(by: stored) else {
                    throw FamilySyncError(.conflict, "clientAlertID \(report.clientAlertID.lowercased) was reported before with other content.", field: "clientAlertID")
                }
                return (stored, false)
            }
            try await family.checkCategories(report.namedCategories)
            let timeZone = try await family.owner(of: device.deviceID).timeZone
            let alert = report.alert(device: device.deviceID, member: member, date: DailySummaryCalculator.day(of: now, in: timeZone), at: now)
            try await family.raise([alert], by: device.deviceID, role: WriterRole(device.role), now: now)
            return (alert, true)
        }
    }
}
