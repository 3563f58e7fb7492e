import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// PROTOCOL §7.3's promise: a stored summary always equals what recomputing it from the stored
/// usage records and daily totals gives (§9.2). Random uploads, in random batches with re-sent
/// records, with overlapping sessions of one app, sessions across midnight and across a DST
/// change, in time zones whose clocks move by an hour or by half an hour; between them, reports of
/// running totals for those days, some lower than what was reported before (late ones).
@Suite struct UsageSummaryPropertyTests {
    /// Time zones and an instant just after one of their DST changes.
    static let zones: [(String, String)] = [
        ("America/New_York", "2026-03-09T18:00:00Z"), ("Europe/Berlin", "2026-10-26T18:00:00Z"),
        ("Australia/Lord_Howe", "2026-04-06T06:00:00Z"), ("UTC", "2026-11-20T18:00:00Z"),
    ]

    @Test(arguments: 1...12)
    func storedSummariesEqualARecomputation(_ seed: Int) async throws {
        var random = SeededGenerator(seed: UInt64(seed))
        let (zoneName, nowText) = Self.zones[seed % Self.zones.count]
        let timeZone = try #require(TimeZone(identifier: zoneName))
        let now = try #require(Instant.parse(nowText))
        try await withServingDatabase { database, client, _ in
            let family = try await RecordEnginePropertyTests.makeFamily(database)
            let store = PostgresUsageIntake(changeLog: ChangeLog(database: database, logger: testLogger), clock: ManualClock(now), logger: testLogger)

            // A pool of sessions over the three days before `now`, some of them near-copies.
            var pool: [UsageSession] = []
            for _ in 0..<Int.random(in: 15...40, using: &random) {
                if let base = pool.randomElement(using: &random), Bool.random(using: &random) {
                    var overlap = base
                    overlap.recordID = UUID(uuid: Self.uuid(&random))
                    overlap.sessionStart = base.sessionStart.addingTimeInterval(TimeInterval(Int.random(in: -600...600, using: &random)))
                    overlap.sessionEnd = max(overlap.sessionStart, base.sessionEnd.addingTimeInterval(TimeInterval(Int.random(in: -600...900, using: &random))))
                    overlap.totalSeconds = Int.random(in: 0...Int(overlap.sessionEnd.timeIntervalSince(overlap.sessionStart)), using: &random)
                    pool.append(overlap)
                    continue
                }
                let duration = [0, 30, 600, 3 * 3600, 9 * 3600, 20 * 3600].randomElement(using: &random)!
                let start = now.addingTimeInterval(-TimeInterval(duration + Int.random(in: 0...(72 * 3600), using: &random)))
                pool.append(UsageSession(
                    recordID: UUID(uuid: Self.uuid(&random)), logicalID: ["khan", "duolingo", "minecraft"].randomElement(using: &random)!,
                    displayName: ["Khan", "Duolingo", "Minecraft", "Renamed"].randomElement(using: &random)!,
                    category: Bool.random(using: &random) ? .learning : .reward, sessionStart: start,
                    sessionEnd: start.addingTimeInterval(TimeInterval(duration)), totalSeconds: Int.random(in: 0...(duration + 1), using: &random),
                    earnedPoints: Int.random(in: 0...100, using: &random)
                ))
            }

            // Uploaded in batches, each re-sending some records already sent (as a retry would),
            // with reports of daily totals between them.
            var sent: [UsageSession] = []
            var remaining = pool.shuffled(using: &random)
            let reportDays = Set(pool.flatMap { DailySummaryCalculator.days(of: $0, in: timeZone) }).sorted()
            var largest: [String: [String: Int]] = [:]
            while !remaining.isEmpty {
                if Bool.random(using: &random) {
                    let date = reportDays.randomElement(using: &random)!
                    let apps = ["khan", "duolingo", "minecraft", "tiktok"].shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)).map { app in
                        DailyTotals.App(
                            logicalID: app, displayName: app.capitalized, category: app == "tiktok" ? CategoryID(rawValue: "social_media")! : .learning,
                            totalSeconds: Int.random(in: 0...(6 * 3600), using: &random), earnedPoints: Int.random(in: 0...50, using: &random),
                            pickups: Bool.random(using: &random) ? Int.random(in: 0...20, using: &random) : nil
                        )
                    }
                    _ = try await store.uploadTotals(apps, date: date, timeZone: zoneName, retention: 400 * 86_400, child: family.child, items: ItemPath { "apps[\($0)]" }, as: .server)
                    for app in apps { largest[date, default: [:]][app.logicalID] = max(largest[date]?[app.logicalID] ?? 0, app.totalSeconds) }
                }
                var batch = Array(remaining.prefix(Int.random(in: 1...8, using: &random)))
                remaining.removeFirst(batch.count)
                for old in sent.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random)) where !batch.contains(old) { batch.append(old) }
                let upload = try await store.upload(batch.shuffled(using: &random), timeZone: zoneName, child: family.child, items: ItemPath { "records[\($0)]" }, as: .server)
                #expect(upload.accepted + upload.duplicates == batch.count)
                sent += batch.filter { !sent.contains($0) }
            }

            // Everything stored, each app's largest total kept, and the summaries recomputed from it.
            let stored = try await Self.stored(family.child, client)
            #expect(Set(stored.sessions.map(\.recordID)) == Set(pool.map(\.recordID)))
            #expect(Dictionary(uniqueKeysWithValues: stored.totals.map { totals in
                (totals.date, Dictionary(uniqueKeysWithValues: totals.apps.map { ($0.logicalID, $0.totalSeconds) }))
            }) == largest)
            let days = reportDays
            let expected = DailySummaryCalculator.summaries(
                of: stored.sessions, totals: stored.totals, days: days, deviceID: family.child.deviceID, timeZone: timeZone, at: now
            )
            for summary in expected {
                if let kept = stored.summaries[summary.date] {
                    #expect(kept.sameContent(as: summary), "seed \(seed), \(zoneName), \(summary.date): stored \(kept), recomputed \(summary)")
                } else {
                    #expect(summary.byApp.isEmpty, "seed \(seed): no summary stored for \(summary.date)")
                }
            }
            #expect(Set(stored.summaries.keys).isSubset(of: Set(days)))
        }
    }

    static func stored(_ child: AuthenticatedDevice, _ client: PostgresClient) async throws -> (
        sessions: [UsageSession], totals: [DailyTotals], summaries: [String: DailySummary]
    ) {
        let rows = try await client.query(
            "SELECT record_type, fields::text FROM records WHERE family_id = \(child.familyID) AND zone_name = \(Device.zoneName(forChild: child.deviceID)) AND NOT deleted",
            logger: testLogger
        )
        var sessions: [UsageSession] = []
        var summaries: [String: DailySummary] = [:]
        var totals: [DailyTotals] = []
        for try await (type, text) in rows.decode((String, String).self) {
            let fields = try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
            if type == "UsageRecord", let session = UsageSession(fields: fields) { sessions.append(session) }
            if type == "DailySummary", let summary = DailySummary(fields: fields) { summaries[summary.date] = summary }
            if type == "DailyTotals", let reported = DailyTotals(fields: fields) { totals.append(reported) }
        }
        return (sessions, totals, summaries)
    }

    static func uuid(_ random: inout SeededGenerator) -> uuid_t {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
    }
}
