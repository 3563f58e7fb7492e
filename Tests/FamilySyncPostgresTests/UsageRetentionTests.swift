import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The retention job, driven by an injected clock: usage and daily totals older than the retention
/// go, in small batches; their daily summaries stay.
@Suite struct UsageRetentionTests {
    @Test func oldUsageGoesAndItsSummariesStay() async throws {
        try await withTestDatabase { client, _ in
            let clock = ManualClock()
            let family = try await RecordEnginePropertyTests.makeFamily(client)
            let changeLog = ChangeLog(database: Database.underTest(client), logger: testLogger)
            let store = PostgresUsageIntake(changeLog: changeLog, clock: clock, logger: testLogger)
            let job = PostgresUsageRetention(changeLog: changeLog, clock: clock, logger: testLogger)
            func session(_ app: String, hoursAgo: Double) -> UsageSession {
                let start = clock.now().addingTimeInterval(-hoursAgo * 3600)
                return UsageSession(recordID: UUID(), logicalID: app, displayName: app, category: .learning, sessionStart: start, sessionEnd: start.addingTimeInterval(600), totalSeconds: 600, earnedPoints: 1)
            }
            let old = [session("a", hoursAgo: 30), session("b", hoursAgo: 29), session("c", hoursAgo: 28)]
            let retention: TimeInterval = 400 * 86_400
            let oldDay = try #require(try await store.upload(old, timeZone: "UTC", child: family.child).summaries.first).date
            let totals = [DailyTotals.App(logicalID: "e", displayName: "E", category: .learning, totalSeconds: 900)]
            let first = try await store.uploadTotals(totals, date: oldDay, timeZone: "UTC", retention: retention, child: family.child).summary
            // Two days more than retention: the old day has ended in every time zone.
            clock.advance(by: 402 * 86_400)
            let recent = session("d", hoursAgo: 1)
            _ = try await store.upload([recent], timeZone: "UTC", child: family.child)
            let today = DailySummaryCalculator.day(of: clock.now(), in: .gmt)
            _ = try await store.uploadTotals(totals, date: today, timeZone: "UTC", retention: retention, child: family.child)

            #expect(try await job.expireUsage(before: clock.now().addingTimeInterval(-retention), batchSize: 2) == 4)
            #expect(try await job.expireUsage(before: clock.now().addingTimeInterval(-retention), batchSize: 2) == 0)

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
        }
    }
}
