import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The retention job, driven by an injected clock: usage older than the retention goes, in small
/// batches; its daily summaries stay.
@Suite struct UsageRetentionTests {
    @Test func oldUsageGoesAndItsSummariesStay() async throws {
        try await withTestDatabase { client, _ in
            let clock = ManualClock()
            let family = try await RecordEnginePropertyTests.makeFamily(client)
            let store = PostgresUsageStore(client: client, clock: clock, logger: testLogger)
            func session(_ app: String, hoursAgo: Double) -> UsageSession {
                let start = clock.now().addingTimeInterval(-hoursAgo * 3600)
                return UsageSession(recordID: UUID(), logicalID: app, displayName: app, category: .learning, sessionStart: start, sessionEnd: start.addingTimeInterval(600), totalSeconds: 600, earnedPoints: 1)
            }
            let old = [session("a", hoursAgo: 30), session("b", hoursAgo: 29), session("c", hoursAgo: 28)]
            let first = try await store.upload(old, timeZone: "UTC", child: family.child)
            clock.advance(by: 400 * 86_400)
            let recent = session("d", hoursAgo: 1)
            _ = try await store.upload([recent], timeZone: "UTC", child: family.child)

            let retention: TimeInterval = 400 * 86_400
            #expect(try await store.expireUsage(before: clock.now().addingTimeInterval(-retention), batchSize: 2) == 3)
            #expect(try await store.expireUsage(before: clock.now().addingTimeInterval(-retention), batchSize: 2) == 0)

            let rows = try await client.query(
                "SELECT record_name, record_type, deleted, fields::text FROM records WHERE family_id = \(family.child.familyID) AND zone_name = \(Device.zoneName(forChild: family.child.deviceID))",
                logger: testLogger
            )
            var usage: [String: (Bool, String)] = [:]
            var summaries: [DailySummary] = []
            for try await (name, type, deleted, fields) in rows.decode((String, String, Bool, String).self) {
                if type == "UsageRecord" { usage[name] = (deleted, fields) }
                if type == "DailySummary", !deleted, let summary = DailySummary(fields: try JSONDecoder().decode([String: JSONValue].self, from: Data(fields.utf8))) {
                    summaries.append(summary)
                }
            }
            for session in old {
                #expect(usage[session.recordName]?.0 == true, "deleted")
                #expect(usage[session.recordName]?.1.trimmingCharacters(in: .whitespaces) == "{}", "its content is gone")
            }
            #expect(usage[recent.recordName]?.0 == false)
            // The old day's summary is what it was.
            let oldDay = try #require(first.summaries.first)
            #expect(summaries.contains { $0.date == oldDay.date && $0.totalLearningSeconds == 1800 && $0.sameContent(as: oldDay) })
        }
    }
}
