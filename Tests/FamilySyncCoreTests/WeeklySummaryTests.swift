import FamilySyncCore
import Foundation
import Testing

/// `DailySummary` → `WeeklySummary`, the registry's newest derivation, without a database.
@Suite struct WeeklySummaryTests {
    static let child = UUID()
    static let now = Instant.parse("2026-11-25T12:00:00Z")!
    static let context = DerivationContext(
        zone: Zone(name: Device.zoneName(forChild: child), childDeviceID: child, incarnation: UUID(), changedSequence: 1, deleted: false),
        writer: child, timeZone: .gmt, now: now
    )

    static func day(_ date: String, minutes: Int, category: CategoryID = .learning) -> Record {
        let summary = DailySummary(
            date: date, deviceID: child, totalLearningSeconds: 0, totalRewardSeconds: 0, totalPointsEarned: 0,
            byApp: [.init(logicalID: "app", displayName: "App", category: category, seconds: minutes * 60, points: 0)], lastUpdated: now
        )
        return Record(
            recordName: summary.recordName, recordType: "DailySummary", fields: summary.fields, changeTag: "", deleted: false, createdAt: now,
            createdBy: child, modifiedAt: now, modifiedBy: child, modifiedRole: .server, clientModifiedAt: now
        )
    }

    @Test func weeksStartOnMonday() {
        #expect(WeeklySummary.monday(of: "2026-11-25") == "2026-11-23")  // a Wednesday
        #expect(WeeklySummary.monday(of: "2026-11-23") == "2026-11-23")
        #expect(WeeklySummary.monday(of: "2026-11-29") == "2026-11-23")  // its Sunday
        #expect(WeeklySummary.monday(of: "2027-01-01") == "2026-12-28")  // across the year
        #expect(WeeklySummary.monday(of: "not a day") == nil)
        #expect(WeeklySummary.dates(ofWeek: "2026-12-28").last == "2027-01-03")
    }

    @Test func aDayWrittenRecomputesItsWeekFromTheStoredDays() throws {
        let derivation = try #require(RecordTypeRegistry.derivations(from: "DailySummary").first { $0.plan([Self.day("2026-11-25", minutes: 1)], Self.context).reads.contains(.named(["summary-2026-11-23"] + (24...29).map { "summary-2026-11-\($0)" } + ["week-2026-11-23"])) })
        let plan = derivation.plan([Self.day("2026-11-25", minutes: 30)], Self.context)
        // Monday's stored 20 minutes count; Wednesday's stored 10 are replaced by the written 30.
        let stored = [Self.day("2026-11-23", minutes: 20), Self.day("2026-11-25", minutes: 10), Self.day("2026-11-30", minutes: 99)].map(StoredRecord.init)
        guard case .derived(let derived) = plan.next(stored) else { Issue.record("another read"); return }
        let week = try #require(derived.first.flatMap { WeeklySummary(fields: $0.record.fields) })
        #expect(derived.map(\.record.recordName) == ["week-2026-11-23"])
        #expect(week.secondsByDay == [1200, 0, 1800, 0, 0, 0, 0])
        #expect(week.totalSeconds == 3000)
        // The same week again, stored as computed: nothing to write.
        let again = stored + derived.map { StoredRecord($0.record) }
        guard case .derived(let none) = plan.next(again) else { Issue.record("another read"); return }
        #expect(none.isEmpty)
    }
}
