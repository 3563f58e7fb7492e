import FamilySyncCore
import Foundation
import Testing

/// PROTOCOL §10's rules without a database, on hand-made timelines of heartbeats (the server's
/// receipt instants).
@Suite struct HeartbeatRulesTests {
    static let device = UUID()

    static func at(_ text: String) -> Date { Instant.parse(text)! }

    /// Replays heartbeats as the store does: the gaps each one closes, and the status after.
    static func replay(_ beats: [(String, Bool)]) -> (gaps: [UsageGap], last: Date?, active: Bool) {
        var gaps: [UsageGap] = []
        var last: Date?, active = false
        for (text, monitoring) in beats {
            let now = at(text)
            if let gap = HeartbeatRules.closedGap(previous: last, previousActive: active, now: now) { gaps.append(gap) }
            last = now
            active = monitoring
        }
        return (gaps, last, active)
    }

    /// The store's quiet heartbeat adds HealthTally's counts in SQL with three gap buckets: it
    /// runs only for a heartbeat within `heartbeatGap` of the last, which the third bound holds.
    @Test func aQuietHeartbeatsGapFitsTheStoresThreeBuckets() {
        #expect(HeartbeatRules.heartbeatGap <= HealthTally.gapBounds[2])
        var tally = HealthTally()
        tally.heartbeat(after: HeartbeatRules.heartbeatGap, monitoring: true)
        #expect(tally.gaps[3...].allSatisfy { $0 == 0 }, "a gap up to heartbeatGap lands in the first three")
    }

    @Test func statusFollowsTheLastHeartbeat() {
        let beat = Self.at("2026-11-20T10:00:00Z")
        #expect(HeartbeatRules.status(lastHeartbeat: nil, monitoringActive: true, now: beat) == .unknown)
        #expect(HeartbeatRules.status(lastHeartbeat: beat, monitoringActive: true, now: beat.addingTimeInterval(120)) == .healthy)
        #expect(HeartbeatRules.status(lastHeartbeat: beat, monitoringActive: true, now: beat.addingTimeInterval(121)) == .stale)
        #expect(HeartbeatRules.status(lastHeartbeat: beat, monitoringActive: false, now: beat.addingTimeInterval(9999)) == .inactive)
    }

    /// A device that sleeps: heartbeats every 30 s, then none for 40 minutes, then again. One gap,
    /// of the 40 minutes; 30-second beats and a 4-minute pause make none.
    @Test func aDeviceThatSleeps() throws {
        let (gaps, _, _) = Self.replay([
            ("2026-11-20T10:00:00Z", true), ("2026-11-20T10:00:30Z", true), ("2026-11-20T10:04:30Z", true),
            ("2026-11-20T10:44:30Z", true), ("2026-11-20T10:45:00Z", true),
        ])
        #expect(gaps == [UsageGap(start: Self.at("2026-11-20T10:04:30Z"), end: Self.at("2026-11-20T10:44:30Z"), method: .heartbeatStale)])
        #expect(gaps.first?.durationMinutes == 40)
        let day = try #require(DailySummaryCalculator.interval(of: "2026-11-20", in: .gmt))
        #expect(HeartbeatRules.heartbeatGapMinutes(HeartbeatRules.gaps(gaps, within: day)) == 40)
        // Monitoring switched off before the pause: no fault, no gap.
        let (off, _, _) = Self.replay([("2026-11-20T10:00:00Z", false), ("2026-11-20T11:00:00Z", true)])
        #expect(off.isEmpty)
    }

    /// An extension that restarts: its sequence starts again lower; skipped numbers are missed.
    @Test func anExtensionThatRestarts() {
        #expect(HeartbeatRules.sequence(previous: nil, next: 5) == (0, false))
        #expect(HeartbeatRules.sequence(previous: 5, next: 6) == (0, false))
        #expect(HeartbeatRules.sequence(previous: 6, next: 6) == (0, false), "a report sent twice")
        #expect(HeartbeatRules.sequence(previous: 6, next: 10) == (3, false))
        #expect(HeartbeatRules.sequence(previous: 10, next: 1) == (0, true))
        #expect(HeartbeatRules.sequence(previous: 10, next: nil) == (0, false))
    }

    /// `notificationSequence` is 0…2147483647 (§10): a 32-bit count of the extension's
    /// notifications, so one report skips at most 2147483646, which the day's counters hold.
    @Test func aSequenceNumberIsWithinItsRange() {
        let now = Self.at("2026-11-20T10:00:00Z")
        func report(_ sequence: Int64) -> HealthReport { HealthReport(heartbeatAt: now, monitoringActive: true, notificationSequence: sequence) }
        for valid: Int64 in [0, 1, 2_147_483_647] {
            #expect(throws: Never.self) { try report(valid).validate(now: now) }
        }
        for invalid: Int64 in [-1, 2_147_483_648, 3_000_000_000, 3_000_000_002, .max, .min] {
            let error = #expect(throws: FamilySyncError.self) { try report(invalid).validate(now: now) }
            #expect(error?.code == .badRequest && error?.field == "notificationSequence", "\(invalid)")
            #expect(error?.reason == "notificationSequence is 0–2147483647.", "\(invalid): \(error?.reason ?? "")")
        }
        #expect(HeartbeatRules.sequence(previous: 0, next: 2_147_483_647) == (2_147_483_646, false))
    }

    /// What a report adds to a day is held to the store's 32-bit counts, as the sums are.
    @Test func aDaysCountsStopAtTheirTop() {
        let top = HealthTally.maximumCount
        let added = HealthTally(heartbeats: top + 1, monitoredSeconds: 5e12, staleSeconds: 1, gaps: [top, top + 5, 0, 1, 2, 3], events: .max, failures: -1)
        #expect(added.saturated == HealthTally(heartbeats: top, monitoredSeconds: 5e12, staleSeconds: 1, gaps: [top, top, 0, 1, 2, 3], events: top, failures: 0))
        #expect(HealthTally(heartbeats: 3, monitoredSeconds: 60, staleSeconds: 0, gaps: [1, 0, 0, 0, 0, 0], events: 2, failures: 1).saturated.heartbeats == 3)
    }

    /// A device whose clock jumps: the rules see receipt instants only, so a heartbeat stamped an
    /// hour ahead or behind changes nothing; a report stamped more than 5 minutes ahead of the
    /// server is refused.
    @Test func aDeviceWhoseClockJumps() throws {
        let now = Self.at("2026-11-20T10:00:00Z")
        try HealthReport(heartbeatAt: now.addingTimeInterval(-3600), monitoringActive: true).validate(now: now)
        try HealthReport(heartbeatAt: now.addingTimeInterval(299), monitoringActive: true).validate(now: now)
        #expect(throws: FamilySyncError.self) { try HealthReport(heartbeatAt: now.addingTimeInterval(301), monitoringActive: true).validate(now: now) }
        // Receipts 30 s apart make no gap whatever the stamps said.
        #expect(Self.replay([("2026-11-20T10:00:00Z", true), ("2026-11-20T10:00:30Z", true)]).gaps.isEmpty)
    }

    /// A gap across midnight counts on each day its part; in a DST day the hours are the zone's.
    @Test func aGapAcrossMidnightAndDST() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        // Clocks went back on 2026-10-25 in Berlin: that day has 25 hours.
        let gap = UsageGap(start: Self.at("2026-10-24T21:30:00Z"), end: Self.at("2026-10-24T22:20:00Z"), method: .heartbeatStale)
        let saturday = try #require(DailySummaryCalculator.interval(of: "2026-10-24", in: berlin))
        let sunday = try #require(DailySummaryCalculator.interval(of: "2026-10-25", in: berlin))
        #expect(sunday.duration == 25 * 3600)
        #expect(HeartbeatRules.heartbeatGapMinutes(HeartbeatRules.gaps([gap], within: saturday)) == 30)
        #expect(HeartbeatRules.heartbeatGapMinutes(HeartbeatRules.gaps([gap], within: sunday)) == 20)
        // An open gap counts up to now, and only on the days it reached.
        let open = try #require(HeartbeatRules.openGap(lastHeartbeat: Self.at("2026-10-25T22:50:00Z"), monitoringActive: true, now: Self.at("2026-10-25T23:10:00Z")))
        #expect(HeartbeatRules.gaps([open], within: sunday).map(\.durationMinutes) == [10])
        #expect(HeartbeatRules.openGap(lastHeartbeat: Self.at("2026-10-25T23:08:00Z"), monitoringActive: true, now: Self.at("2026-10-25T23:10:00Z")) == nil)
    }

    @Test func sessionGapsAreBetweenSessionsFarApart() throws {
        let day = try #require(DailySummaryCalculator.interval(of: "2026-11-20", in: .gmt))
        func session(_ start: String, _ end: String) -> UsageSession {
            UsageSession(recordID: UUID(), logicalID: "a", displayName: "A", category: .learning, sessionStart: Self.at(start), sessionEnd: Self.at(end), totalSeconds: 0, earnedPoints: 0)
        }
        let gaps = HeartbeatRules.sessionGaps([
            session("2026-11-20T10:00:00Z", "2026-11-20T10:30:00Z"), session("2026-11-20T10:20:00Z", "2026-11-20T10:35:00Z"),
            session("2026-11-20T10:44:00Z", "2026-11-20T10:50:00Z"), session("2026-11-20T12:00:00Z", "2026-11-20T12:10:00Z"),
        ], within: day)
        #expect(gaps == [UsageGap(start: Self.at("2026-11-20T10:50:00Z"), end: Self.at("2026-11-20T12:00:00Z"), method: .sessionGap)])
        // Session gaps are no tracking fault: they count nothing towards the alert.
        #expect(HeartbeatRules.heartbeatGapMinutes(gaps) == 0)
    }

    /// The day's record: heartbeat and session gaps, errors of the day newest first, the open gap
    /// counted, and the tracking alert only past 15 minutes.
    @Test func aDaysHealthAndItsExport() throws {
        let now = Self.at("2026-11-20T18:00:00Z")
        let errors = (0..<3).map { index in
            ExtensionError(id: UUID(), timestamp: Self.at("2026-11-20T1\(index):00:00Z"), eventName: "intervalDidStart", action: "record_usage", success: index != 1, errorDescription: index == 1 ? "disk full" : nil)
        } + [ExtensionError(id: UUID(), timestamp: Self.at("2026-11-19T10:00:00Z"), eventName: "old", action: "memory_warning", success: false)]
        let health = try #require(DeviceHealth.day(
            "2026-11-20", in: .gmt, deviceID: Self.device, lastHeartbeatAt: Self.at("2026-11-20T17:50:00Z"), monitoringActive: true, memoryUsageMB: 5,
            missedNotifications: 2, sequenceResets: 1,
            heartbeatGaps: [UsageGap(start: Self.at("2026-11-20T09:00:00Z"), end: Self.at("2026-11-20T09:07:00Z"), method: .heartbeatStale)],
            sessions: [], errors: errors, errorLimit: 2, now: now
        ))
        #expect(health.status == .stale)
        #expect(health.gapMinutesToday == 17, "7 closed and 10 open")
        #expect(health.errorsToday == 3 && health.lastErrors.map(\.eventName) == ["intervalDidStart", "intervalDidStart"])
        #expect(health.lastErrors.first?.timestamp == Self.at("2026-11-20T12:00:00Z"))
        let alert = try #require(Alert.tracking(member: UUID(), device: Self.device, deviceName: "iPad", date: health.date, gapMinutes: health.gapMinutesToday, at: now))
        #expect(alert.kind == .tracking && alert.usedMinutes == 17 && alert.alertID == Alert.trackingAlertID(device: Self.device, date: "2026-11-20"))
        #expect(Alert.tracking(member: UUID(), device: Self.device, deviceName: "iPad", date: "2026-11-20", gapMinutes: 15, at: now) == nil)

        let text = health.export(deviceName: "Johnny's iPad", timeZone: "UTC")
        let sections = ["EXTENSION HEALTH", "DATA GAPS", "ERROR LOG"].map { text.range(of: "\n\($0)\n")?.lowerBound }
        #expect(sections.allSatisfy { $0 != nil } && sections.map { $0! } == sections.map { $0! }.sorted(), "\(text)")
        #expect(text.contains("missed notifications: 2") && text.contains("heartbeat gaps: 17 min") && text.contains("failed  intervalDidStart: disk full"))
        // The record's fields read back.
        var back = try #require(DeviceHealth(fields: health.fields, deviceID: Self.device))
        back.heartbeatGapSeconds = health.heartbeatGapSeconds
        back.asOf = health.asOf
        #expect(back == health)
    }

    @Test func whenTheRecordIsWrittenAgain() {
        let now = Self.at("2026-11-20T10:00:00Z")
        let fresh = now.addingTimeInterval(-60), old = now.addingTimeInterval(-300)
        #expect(!HeartbeatRules.mustWriteRecord(statusBefore: .healthy, statusAfter: .healthy, newErrors: 0, closedGap: false, recordWrittenAt: fresh, now: now))
        #expect(HeartbeatRules.mustWriteRecord(statusBefore: .healthy, statusAfter: .healthy, newErrors: 0, closedGap: false, recordWrittenAt: old, now: now))
        #expect(HeartbeatRules.mustWriteRecord(statusBefore: .stale, statusAfter: .healthy, newErrors: 0, closedGap: false, recordWrittenAt: fresh, now: now))
        #expect(HeartbeatRules.mustWriteRecord(statusBefore: .healthy, statusAfter: .healthy, newErrors: 1, closedGap: false, recordWrittenAt: fresh, now: now))
        #expect(HeartbeatRules.mustWriteRecord(statusBefore: .healthy, statusAfter: .healthy, newErrors: 0, closedGap: true, recordWrittenAt: fresh, now: now))
        #expect(HeartbeatRules.mustWriteRecord(statusBefore: .healthy, statusAfter: .healthy, newErrors: 0, closedGap: false, recordWrittenAt: nil, now: now))
    }

    @Test func errorsAreChecked() {
        let now = Self.at("2026-11-20T10:00:00Z")
        func report(_ errors: [ExtensionError]) -> HealthReport { HealthReport(heartbeatAt: now, monitoringActive: true, errors: errors) }
        let valid = ExtensionError(id: UUID(), timestamp: now, eventName: "e", action: "x-my_action", success: true)
        #expect(throws: Never.self) { try report([valid]).validate(now: now) }
        var unknown = valid
        unknown.action = "explode"
        #expect(throws: FamilySyncError.self) { try report([unknown]).validate(now: now) }
        #expect(throws: FamilySyncError.self) { try report([valid, valid]).validate(now: now) }
        #expect(throws: FamilySyncError.self) { try report((0...100).map { _ in ExtensionError(id: UUID(), timestamp: now, eventName: "e", action: "record_usage", success: true) }).validate(now: now) }
    }
}
