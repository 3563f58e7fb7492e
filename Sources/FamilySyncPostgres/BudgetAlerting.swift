import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

extension LockedFamily {
    /// The budget alerts a member's days call for now (PROTOCOL §9.4), written into the member's
    /// zone in this transaction: after an upload changed one of the member's devices' days. Under
    /// the family's lock the member's days, budgets and alerts read here cannot change before the
    /// commit, and an alert's name comes from (member, budget, day, percent), so each is made once whatever
    /// the order, repetition or concurrency of uploads from the member's devices.
    func alertBudgets(of memberID: UUID, days dates: [String], device: UUID, now: Date) async throws -> [Alert] {
        guard !dates.isEmpty else { return [] }
        let zoneName = Member.zoneName(of: memberID)
        let budgets = try await RecordRow.fields(ofType: "Budget", inZone: zoneName, family: id, on: connection, logger: logger)
            .compactMap(Budget.init(fields:)).filter(\.enabled)
        guard !budgets.isEmpty else { return [] }
        let memberDays = try await MemberRows.days(familyID: id, memberID: memberID, dates: dates, on: connection, logger: logger)
        let candidates = memberDays.flatMap { day in
            BudgetEvaluation.alertsDue(budgets: budgets, date: day.date, byCategory: day.secondsByCategory, existing: [], member: memberID, device: device, at: now)
        }
        guard !candidates.isEmpty else { return [] }
        // Made already (by an earlier upload, or dismissed since): not again.
        let existing = try await connection.rows(
            """
            SELECT record_name FROM records
            WHERE family_id = \(id) AND zone_name = \(zoneName) AND record_name = ANY(\(candidates.map(\.recordName)))
            """,
            logger: logger
        ).map { try $0.decode(String.self) }
        let fresh = candidates.filter { !existing.contains($0.recordName) }
        guard !fresh.isEmpty else { return [] }
        try await raise(fresh, by: device, now: now)
        return fresh
    }
}
