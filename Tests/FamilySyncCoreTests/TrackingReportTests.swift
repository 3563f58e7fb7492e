import FamilySyncCore
import Foundation
import Testing

@Suite struct HealthTallyTests {
    /// The one-statement heartbeat adds to three buckets (`PostgresHealthIntake`): its interval is
    /// at most `heartbeatGap`, so it never reaches a fourth.
    @Test func aQuietIntervalFitsTheRowsThreeBuckets() {
        #expect(HealthTally.gapBounds[2] == HeartbeatRules.heartbeatGap && HealthTally.gapBounds[1] == HeartbeatRules.staleAfter)
    }

    @Test func aHeartbeatCountsItsIntervalOnlyWhileMonitoring() {
        var tally = HealthTally()
        tally.heartbeat(after: nil, monitoring: true)
        tally.heartbeat(after: 30, monitoring: true)
        tally.heartbeat(after: 60, monitoring: true)
        tally.heartbeat(after: 60.5, monitoring: true)
        tally.heartbeat(after: 420, monitoring: true)
        tally.heartbeat(after: 7200, monitoring: false)
        #expect(tally.heartbeats == 6 && tally.monitoredSeconds == 570.5 && tally.staleSeconds == 300)
        #expect(tally.gaps == [2, 1, 0, 1, 0, 0])
        tally.heartbeat(after: 3601, monitoring: true)
        #expect(tally.gaps.last == 1 && tally.staleSeconds == 300 + 3481)
    }

    @Test func aFullReportFoldsTheQuietOnesIntoTheirDay() {
        let chicago = TimeZone(identifier: "America/Chicago")!
        // 23:59:30 local on 25 November, then the next report at 00:04:30 on the 26th.
        let before = HeartbeatState(
            monitoringActive: true, lastHeartbeatAt: Instant.parse("2026-11-26T05:59:30Z")!, memoryUsageMB: nil, lastSequence: nil, status: .healthy,
            recordWrittenAt: Instant.parse("2026-11-26T05:55:00Z")!, recordDayEnd: Instant.parse("2026-11-26T06:00:00Z")!
        )
        let pending = HealthTally(heartbeats: 9, monitoredSeconds: 270, staleSeconds: 0, gaps: [9, 0, 0], events: 0, failures: 0)
        let failed = ExtensionError(id: UUID(), timestamp: Date(), eventName: "e", action: "record_usage", success: false)
        let tallies = HeartbeatRules.tallies(before: before, pending: pending, newErrors: [failed], in: chicago, now: Instant.parse("2026-11-26T06:04:30Z")!)
        #expect(tallies.map(\.date) == ["2026-11-25", "2026-11-26"])
        // The interval's 30 s before midnight on the 25th, with the quiet ones; the rest, past the
        // stale mark from 00:01:30, its heartbeat and its events on the 26th.
        #expect(tallies[0].tally == HealthTally(heartbeats: 9, monitoredSeconds: 300, staleSeconds: 0, gaps: [9, 0, 0], events: 0, failures: 0))
        #expect(tallies[1].tally == HealthTally(heartbeats: 1, monitoredSeconds: 270, staleSeconds: 180, gaps: [0, 0, 1, 0, 0, 0], events: 1, failures: 1))
        // A silence of two days: each day its part, the stale time from two minutes in.
        let silence = HeartbeatRules.tallies(before: before, pending: HealthTally(), newErrors: [], in: chicago, now: Instant.parse("2026-11-28T06:00:00Z")!)
        #expect(silence.map(\.date) == ["2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28"])
        #expect(silence.map(\.tally.monitoredSeconds) == [30, 86_400, 86_400, 0] && silence.map(\.tally.staleSeconds) == [0, 86_310, 86_400, 0])
        #expect(silence.map(\.tally.heartbeats) == [0, 0, 0, 1] && silence[3].tally.gaps == [0, 0, 0, 0, 0, 1])
        // On the same day, one entry; with nothing pending, the report's own.
        let sameDay = HeartbeatRules.tallies(before: before, pending: pending, newErrors: [], in: chicago, now: Instant.parse("2026-11-26T05:59:45Z")!)
        #expect(sameDay.count == 1 && sameDay[0].tally.heartbeats == 10 && sameDay[0].tally.gaps == [10, 0, 0, 0, 0, 0])
        #expect(HeartbeatRules.tallies(before: nil, pending: HealthTally(), newErrors: [], in: chicago, now: Date()).map(\.tally.heartbeats) == [1])
    }
}

@Suite struct TrackingReportRulesTests {
    static func figures(devices: Int, monitored: Double, stale: Double, intervals: Int, events: Int = 0, failures: Int = 0) -> TrackingReport.Figures {
        .init(
            devices: devices, tally: HealthTally(heartbeats: intervals + devices, monitoredSeconds: monitored, staleSeconds: stale, gaps: [intervals, 0, 0, 0, 0, 0], events: events, failures: failures),
            missedNotifications: 0, sequenceResets: 0
        )
    }

    @Test func targetsAreMissedAtTheirLinesAndNotWithoutFigures() {
        let targets = TrackingReport.Targets()
        #expect(Self.figures(devices: 1, monitored: 1000, stale: 19.9, intervals: 10).missed(targets) == [])
        #expect(Self.figures(devices: 1, monitored: 1000, stale: 20, intervals: 10).missed(targets) == ["staleRate"])
        #expect(Self.figures(devices: 1, monitored: 1000, stale: 0, intervals: 10, events: 100, failures: 1).missed(targets) == ["failureRate"])
        #expect(Self.figures(devices: 1, monitored: 1810, stale: 0, intervals: 10).missed(targets) == ["averageHeartbeatGapSeconds"])
        let nothing = Self.figures(devices: 0, monitored: 0, stale: 0, intervals: 0)
        #expect(nothing.staleRate == nil && nothing.failureRate == nil && nothing.averageHeartbeatGapSeconds == nil && nothing.missed(targets) == [])
    }

    @Test func groupsAreOrderedByPlatformThenVersionAndCarryTheirSystems() throws {
        let week = ISOWeek("2026-W48")!
        let rows: [TrackingReport.Row] = [
            .init(level: .system, platform: "ios", appVersion: "2.10", osVersion: "18.1", figures: Self.figures(devices: 2, monitored: 60, stale: 0, intervals: 2)),
            .init(level: .system, platform: "ios", appVersion: "2.10", osVersion: "18.2", figures: Self.figures(devices: 3, monitored: 60, stale: 0, intervals: 2)),
            .init(level: .app, platform: "ios", appVersion: "2.10", osVersion: nil, figures: Self.figures(devices: 4, monitored: 120, stale: 0, intervals: 4)),
            .init(level: .app, platform: "ios", appVersion: "2.9", osVersion: nil, figures: Self.figures(devices: 1, monitored: 60, stale: 30, intervals: 1)),
            .init(level: .app, platform: "ipados", appVersion: nil, osVersion: nil, figures: Self.figures(devices: 1, monitored: 60, stale: 0, intervals: 1)),
            .init(level: .fleet, platform: nil, appVersion: nil, osVersion: nil, figures: Self.figures(devices: 6, monitored: 240, stale: 30, intervals: 6)),
        ]
        let report = TrackingReport(week: week, rows: rows)
        #expect(report.groups.map { "\($0.platform) \($0.appVersion ?? "-")" } == ["ios 2.9", "ios 2.10", "ipados -"])
        #expect(report.groups[1].osVersions.map(\.osVersion) == ["18.2", "18.1"] && report.total.devices == 6)
        let text = report.text
        #expect(text.hasPrefix("TRACKING REPORT 2026-W48 (2026-11-23 to 2026-11-29, the devices' local days)"))
        #expect(text.contains("ios 2.9") && text.contains("50.00 %!") && text.contains("ipados (no version)"))
        #expect(text.contains("Targets missed (!): the fleet, 1 of 3 groups."), "\(text)")
        #expect(TrackingReport(week: week, rows: []).text.contains("Every target met."))
        // Long versions are printed whole, the columns after them aligned.
        let long = String(repeating: "9", count: 64)
        let wide = TrackingReport(week: week, rows: [
            .init(level: .app, platform: "ios", appVersion: long, osVersion: nil, figures: Self.figures(devices: 1, monitored: 60, stale: 0, intervals: 1)),
        ]).text.split(separator: "\n")
        let row = try #require(wide.first { $0.hasPrefix("ios \(long)") })
        let header = try #require(wide.first { $0.hasSuffix("resets") })
        #expect(row.count == header.count, "\(row)\n\(header)")
    }
}
