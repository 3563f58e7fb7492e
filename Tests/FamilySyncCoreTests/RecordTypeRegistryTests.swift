import FamilySyncCore
import Foundation
import Testing

/// The registry's declarations and their derivations (`UsageRecord`/`DailyTotals` →
/// `DailySummary` → `Alert`), run as the change log runs them, without a database.
@Suite struct RecordTypeRegistryTests {
    static let child = UUID()
    static let now = Instant.parse("2026-11-21T12:00:00Z")!
    static let context = DerivationContext(
        zone: Zone(name: Device.zoneName(forChild: child), childDeviceID: child, incarnation: UUID(), changedSequence: 1, deleted: false),
        writer: child, timeZone: TimeZone(identifier: "America/Chicago")!, now: now
    )

    static func usage(_ app: String, _ start: String, _ end: String, seconds: Int) -> Record {
        let session = UsageSession(
            recordID: UUID(), logicalID: app, displayName: app, category: .learning, sessionStart: Instant.parse(start)!, sessionEnd: Instant.parse(end)!,
            totalSeconds: seconds, earnedPoints: 0
        )
        return Record(
            recordName: session.recordName, recordType: "UsageRecord", fields: session.fields, changeTag: "", deleted: false, createdAt: now,
            createdBy: child, modifiedAt: now, modifiedBy: child, modifiedRole: .child, clientModifiedAt: now
        )
    }

    @Test func everyTypeOfTheProtocolIsDeclaredWithWhatItDerivesFrom() {
        #expect(Set(RecordTypeRegistry.types.keys) == [
            "AppConfiguration", "DeviceSettings", "ConfigurationCommand", "UsageRecord", "DailyTotals", "DailySummary", "Category", "Budget", "Alert",
            "DeviceHealth", "Schedule", "ShieldConfiguration", "WeeklySummary",
        ])
        let sources = RecordTypeRegistry.types.values.filter { !$0.derivedFrom.isEmpty }.map { ($0.name, $0.derivedFrom.map(\.source).sorted()) }
        #expect(Dictionary(uniqueKeysWithValues: sources) == ["DailySummary": ["DailyTotals", "UsageRecord"], "Alert": ["DailySummary", "heartbeat"], "WeeklySummary": ["DailySummary"],
            "DeviceHealth": ["heartbeat"],
        ])
        #expect(RecordTypeRegistry.derivations(from: "UsageRecord").count == 1)
        #expect(RecordTypeRegistry.derivations(from: "Budget").isEmpty)
    }

    /// A derivation's chain ends: following "derived from" never comes back to a type.
    @Test func noChainOfDerivationsComesBackToItsStart() {
        func derivedTypes(of source: String) -> [String] {
            RecordTypeRegistry.types.values.filter { $0.derivedFrom.contains { $0.source == source } }.map(\.name)
        }
        for start in RecordTypeRegistry.types.keys {
            var seen: Set<String> = []
            var frontier = derivedTypes(of: start)
            while let next = frontier.popLast() {
                #expect(next != start, "\(start) derives itself through \(seen)")
                guard next != start, seen.insert(next).inserted else { continue }
                frontier += derivedTypes(of: next)
            }
        }
    }

    @Test func usageAcrossMidnightReadsBothDaysAndDerivesBothSummaries() throws {
        let derivation = try #require(RecordTypeRegistry.derivations(from: "UsageRecord").first)
        // 23:30 to 00:30 in Chicago.
        let written = [Self.usage("khan", "2026-11-20T05:30:00Z", "2026-11-20T06:30:00Z", seconds: 3000)]
        let plan = derivation.plan(written, Self.context)
        let reads = plan.reads
        #expect(reads.contains(.named(["summary-2026-11-19", "summary-2026-11-20", "totals-2026-11-19", "totals-2026-11-20"])))
        #expect(reads.contains(.overlapping(
            type: "UsageRecord", startField: "sessionStart", endField: "sessionEnd",
            interval: DateInterval(start: Instant.parse("2026-11-19T06:00:00Z")!, end: Instant.parse("2026-11-21T06:00:00Z")!)
        )))
        let derived = plan.records([])
        #expect(derived.map(\.recordName) == ["summary-2026-11-19", "summary-2026-11-20"])
        #expect(derived.allSatisfy { $0.recordType == "DailySummary" && $0.modifiedRole == .server && $0.createdBy == Self.child })
        #expect(derived.compactMap { DailySummary(fields: $0.fields)?.totalLearningSeconds } == [1500, 1500])
    }

    @Test func storedSessionsCountAndAnUnchangedDayIsNotWrittenAgain() throws {
        let derivation = try #require(RecordTypeRegistry.derivations(from: "UsageRecord").first)
        let earlier = Self.usage("khan", "2026-11-20T15:00:00Z", "2026-11-20T15:10:00Z", seconds: 600)
        let first = derivation.plan([earlier], Self.context).records([])
        #expect(first.compactMap { DailySummary(fields: $0.fields)?.totalLearningSeconds } == [600])

        // A later session of another app: the day is recomputed over both.
        let later = Self.usage("chess", "2026-11-20T16:00:00Z", "2026-11-20T16:05:00Z", seconds: 300)
        let second = derivation.plan([later], Self.context).records(([earlier] + first).map(StoredRecord.init))
        #expect(second.compactMap { DailySummary(fields: $0.fields)?.totalLearningSeconds } == [900])
        #expect(second.first?.createdAt == first.first?.createdAt, "a summary written again keeps its creation")

        // The same session counted again under another id adds nothing: the day stays as stored.
        var again = earlier
        again.recordName = "usage-\(UUID().lowercased)"
        var fields = again.fields
        fields["recordID"] = .string(String(again.recordName.dropFirst("usage-".count)))
        again.fields = fields
        #expect(derivation.plan([again], Self.context).records(([earlier, later] + second).map(StoredRecord.init)).isEmpty)
    }

    /// `DailyTotals` → `DailySummary`: the totals' day, read with its sessions, in the zone's time
    /// zone; the totals being written replace the stored ones.
    @Test func totalsDeriveTheirDaysSummaryOverItsSessions() throws {
        let derivation = try #require(RecordTypeRegistry.derivations(from: "DailyTotals").first)
        let totals = DailyTotals(date: "2026-11-20", apps: [DailyTotals.App(logicalID: "khan", displayName: "Khan", category: .learning, totalSeconds: 1200)])
        let record = Record(
            recordName: totals.recordName, recordType: "DailyTotals", fields: totals.fields, changeTag: "", deleted: false, createdAt: Self.now,
            createdBy: Self.child, modifiedAt: Self.now, modifiedBy: Self.child, modifiedRole: .child, clientModifiedAt: Self.now
        )
        let plan = derivation.plan([record], Self.context)
        #expect(plan.reads.contains(.overlapping(
            type: "UsageRecord", startField: "sessionStart", endField: "sessionEnd",
            interval: DateInterval(start: Instant.parse("2026-11-20T06:00:00Z")!, end: Instant.parse("2026-11-21T06:00:00Z")!)
        )))
        // A stored session of 30 minutes beats the total; the stored (older, smaller) totals are replaced.
        let session = Self.usage("khan", "2026-11-20T15:00:00Z", "2026-11-20T15:30:00Z", seconds: 1800)
        var older = record
        older.fields = DailyTotals(date: "2026-11-20", apps: [DailyTotals.App(logicalID: "khan", displayName: "Khan", category: .learning, totalSeconds: 2400)]).fields
        let derived = plan.records([StoredRecord(session), StoredRecord(older)])
        #expect(derived.compactMap { DailySummary(fields: $0.fields)?.totalLearningSeconds } == [1800])
    }

    @Test func aSessionWithNothingToCountOnADayWithoutSummaryWritesNothing() throws {
        let derivation = try #require(RecordTypeRegistry.derivations(from: "UsageRecord").first)
        let empty = Self.usage("khan", "2026-11-20T15:00:00Z", "2026-11-20T15:00:00Z", seconds: 0)
        #expect(derivation.plan([empty], Self.context).records([]).isEmpty)
    }
}

extension Derivation.Plan {
    /// What the plan derives from `stored` in one step (these derivations read once).
    func records(_ stored: [StoredRecord]) -> [Record] {
        guard case .derived(let derived) = next(stored) else {
            Issue.record("the plan asked for another read")
            return []
        }
        return derived.map(\.record)
    }
}
