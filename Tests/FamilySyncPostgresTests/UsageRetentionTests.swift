import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The retention job (§15.1), driven by an injected clock: usage and daily totals older than the
/// family's settings go, in small batches; their daily summaries stay as long as the family keeps
/// summaries, and go at the operator's maximum.
@Suite struct UsageRetentionTests {
    @Test func oldUsageGoesAndItsSummariesStayAsTheFamilySays() async throws {
        try await withServingDatabase(isolation: .database) { database, client, _ in
            let clock = ManualClock()
            let family = try await RecordEnginePropertyTests.makeFamily(database)
            let changeLog = ChangeLog(database: database, logger: testLogger)
            let store = PostgresUsageIntake(changeLog: changeLog, clock: clock, logger: testLogger)
            let job = PostgresRetention(changeLog: changeLog, clock: clock, logger: testLogger)
            func session(_ app: String, hoursAgo: Double) -> UsageSession {
                let start = clock.now().addingTimeInterval(-hoursAgo * 3600)
                return UsageSession(recordID: UUID(), logicalID: app, displayName: app, category: .learning, sessionStart: start, sessionEnd: start.addingTimeInterval(600), totalSeconds: 600, earnedPoints: 1)
            }
            let old = [session("a", hoursAgo: 30), session("b", hoursAgo: 29), session("c", hoursAgo: 28)]
            let retention: TimeInterval = 400 * 86_400
            let oldDay = try #require(try await store.upload(old, timeZone: "UTC", child: family.child, items: ItemPath { "records[\($0)]" }, as: .server).summaries.first).date
            let totals = [DailyTotals.App(logicalID: "e", displayName: "E", category: .learning, totalSeconds: 900)]
            let first = try await store.uploadTotals(totals, date: oldDay, timeZone: "UTC", retention: retention, child: family.child, items: ItemPath { "apps[\($0)]" }, as: .server).summary
            // The family keeps usage 30 days, and summaries the maximum (400).
            try await job.set(RetentionSettings(days: [.usageSessions: 30, .dailyTotals: 30]), familyID: family.child.familyID, as: .server)
            // Two days more than that: the old day has ended in every time zone.
            clock.advance(by: 32 * 86_400)
            let recent = session("d", hoursAgo: 1)
            _ = try await store.upload([recent], timeZone: "UTC", child: family.child, items: ItemPath { "records[\($0)]" }, as: .server)
            let today = DailySummaryCalculator.day(of: clock.now(), in: .gmt)
            _ = try await store.uploadTotals(totals, date: today, timeZone: "UTC", retention: retention, child: family.child, items: ItemPath { "apps[\($0)]" }, as: .server)

            #expect(try await job.expire(maximumDays: 400, batchSize: 2) == 4)
            #expect(try await job.expire(maximumDays: 400, batchSize: 2) == 0)

            let rows = try await client.query(
                "SELECT record_name, record_type, deleted, fields::text FROM records WHERE family_id = \(family.child.familyID) AND zone_name = \(Device.zoneName(forChild: family.child.deviceID))",
                logger: testLogger
            )
            var usage: [String: (Bool, String)] = [:]
            var totalsKept: [String: Bool] = [:]
            var summaries: [DailySummary] = []
            for try await (name, type, deleted, fields) in rows.decode((String, String, Bool, String).self) {
                if type == "UsageRecord" { usage[name] = (deleted, fields) }
                if type == "DailyTotals" { totalsKept[name] = !deleted }
                if type == "DailySummary", !deleted, let summary = DailySummary(fields: try JSONDecoder().decode([String: JSONValue].self, from: Data(fields.utf8))) {
                    summaries.append(summary)
                }
            }
            for session in old {
                #expect(usage[session.recordName]?.0 == true, "deleted")
                #expect(usage[session.recordName]?.1.trimmingCharacters(in: .whitespaces) == "{}", "its content is gone")
            }
            #expect(usage[recent.recordName]?.0 == false)
            #expect(totalsKept == [DailyTotals.recordName(oldDay): false, DailyTotals.recordName(today): true])
            // The old day's summary is what it was, its totals counted.
            #expect(summaries.contains { $0.date == oldDay && $0.totalLearningSeconds == 2700 && $0.sameContent(as: first) })

            // The setting is in the audit log, made by the server (no request's device here).
            func auditLog() async throws -> [AuditEvent] {
                try await PostgresAuditStore(database: database, logger: testLogger)
                    .events(familyID: family.child.familyID, member: nil, before: nil, limit: 10)
            }
            let logged = try await auditLog()
            #expect(logged.first?.entry.action == .retentionSet, "\(logged)")
            #expect(logged.first?.actor == .server)

            // At the operator's maximum the old day's summaries go too (tombstones, so devices drop
            // them); the recent day's stay.
            clock.advance(by: 370 * 86_400)
            #expect(try await job.expire(maximumDays: 400) >= 2)
            let live = try await client.query(
                """
                SELECT record_type, fields ->> 'date' FROM records
                WHERE family_id = \(family.child.familyID) AND record_type IN ('DailySummary', 'WeeklySummary') AND NOT deleted
                """,
                logger: testLogger
            ).collect().map { try $0.decode((String, String?).self) }
            #expect(!live.contains { $0.1 == oldDay })
            #expect(live.contains { $0.0 == "DailySummary" && $0.1 == today })
            // The setting's audit entry is past the maximum too (the fixture's pairings were made on
            // the system's clock, not this one).
            let left = try await auditLog()
            #expect(!left.isEmpty && !left.contains { $0.entry.action == .retentionSet }, "\(left)")
        }
    }
}
