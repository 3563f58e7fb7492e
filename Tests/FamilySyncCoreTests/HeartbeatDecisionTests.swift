import FamilySyncCore
import Foundation
import Testing

/// §10's decisions without a database: a report taken the full way, the quiet heartbeat's bounds
/// against that decision, and the stale detector's cut-offs against `status`.
@Suite struct HeartbeatDecisionTests {
    static func at(_ text: String) -> Date { Instant.parse(text)! }

    static let now = at("2026-11-20T10:00:00Z")
    static let endOfDay = at("2026-11-21T00:00:00Z")

    static func state(
        active: Bool = true, heard secondsAgo: TimeInterval = 30, sequence: Int64? = 7, status: TrackingStatus = .healthy, written writtenAgo: TimeInterval = 60,
        dayEnd: Date = endOfDay, memory: Double? = 12
    ) -> HeartbeatState {
        HeartbeatState(
            monitoringActive: active, lastHeartbeatAt: now.addingTimeInterval(-secondsAgo), memoryUsageMB: memory, lastSequence: sequence, status: status,
            recordWrittenAt: now.addingTimeInterval(-writtenAgo), recordDayEnd: dayEnd
        )
    }

    static func decide(_ before: HeartbeatState?, _ report: HealthReport, newErrors: Int = 0, in zone: TimeZone = .gmt, now: Date = now) -> HeartbeatDecision {
        HeartbeatRules.decide(before: before, report: report, newErrors: newErrors, in: zone, now: now)
    }

    @Test func aDevicesFirstReportWritesTheRecord() {
        let decision = Self.decide(nil, HealthReport(heartbeatAt: Self.now, monitoringActive: true, memoryUsageMB: 3, notificationSequence: 1))
        #expect(decision.date == "2026-11-20" && decision.dayEnd == Self.endOfDay)
        #expect(decision.statusBefore == .unknown && decision.statusAfter == .healthy && decision.writesRecord)
        #expect(decision.closedGap == nil && decision.alertDays.isEmpty && decision.sinceLastHeartbeat == nil && !decision.sequenceChanged)
        #expect(decision.after == HeartbeatState(
            monitoringActive: true, lastHeartbeatAt: Self.now, memoryUsageMB: 3, lastSequence: 1, status: .healthy, recordWrittenAt: Self.now, recordDayEnd: Self.endOfDay
        ))
    }

    /// Nothing a parent sees: the record stays as written, memory and number kept where the report has none.
    @Test func aHeartbeatThatChangesNothingKeepsTheRecord() {
        let before = Self.state()
        let decision = Self.decide(before, HealthReport(heartbeatAt: Self.now, monitoringActive: true))
        #expect(!decision.writesRecord && decision.sinceLastHeartbeat == 30)
        var after = before
        after.lastHeartbeatAt = Self.now
        #expect(decision.after == after)
    }

    @Test func whatWritesTheRecord() {
        let beat = HealthReport(heartbeatAt: Self.now, monitoringActive: true, notificationSequence: 8)
        #expect(Self.decide(Self.state(written: 300), beat).writesRecord, "five minutes old")
        #expect(Self.decide(Self.state(status: .stale), beat).writesRecord, "stale to healthy")
        #expect(Self.decide(Self.state(), beat, newErrors: 1).writesRecord)
        #expect(Self.decide(Self.state(), HealthReport(heartbeatAt: Self.now, monitoringActive: false)).statusAfter == .inactive)
        // A record of a day that ended is written again however fresh.
        let yesterday = Self.decide(Self.state(dayEnd: Self.now), beat)
        #expect(yesterday.writesRecord && yesterday.after.recordWrittenAt == Self.now && yesterday.after.recordDayEnd == Self.endOfDay)

        let skipped = Self.decide(Self.state(), HealthReport(heartbeatAt: Self.now, monitoringActive: true, notificationSequence: 11))
        #expect(skipped.missedNotifications == 3 && !skipped.sequenceReset && skipped.sequenceChanged && skipped.writesRecord)
        let restarted = Self.decide(Self.state(), HealthReport(heartbeatAt: Self.now, monitoringActive: true, notificationSequence: 1))
        #expect(restarted.sequenceReset && restarted.writesRecord && restarted.after.lastSequence == 1)
    }

    /// A gap closed across midnight: the alerts of both days are looked at.
    @Test func aClosedGapNamesTheDaysItTouched() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let now = Self.at("2026-11-19T23:20:00Z")
        let before = HeartbeatState(
            monitoringActive: true, lastHeartbeatAt: Self.at("2026-11-19T22:40:00Z"), memoryUsageMB: nil, lastSequence: nil, status: .healthy,
            recordWrittenAt: Self.at("2026-11-19T22:40:00Z"), recordDayEnd: Self.at("2026-11-19T23:00:00Z")
        )
        let decision = Self.decide(before, HealthReport(heartbeatAt: now, monitoringActive: true), in: berlin, now: now)
        #expect(decision.closedGap == UsageGap(start: before.lastHeartbeatAt, end: now, method: .heartbeatStale))
        #expect(decision.date == "2026-11-20" && decision.alertDays == ["2026-11-19", "2026-11-20"] && decision.writesRecord)
        // Monitoring off before the pause: no gap, no day to look at.
        var off = before
        off.monitoringActive = false
        #expect(Self.decide(off, HealthReport(heartbeatAt: now, monitoringActive: true), in: berlin, now: now).alertDays.isEmpty)
    }

    /// The days a gap touches are the days an hourly walk from its start, and its end's, fall in:
    /// every day lasts longer than an hour, DST days included.
    @Test func theDaysAGapTouches() throws {
        var generator = SystemRandomNumberGenerator()
        for name in ["UTC", "Europe/Berlin", "America/Sao_Paulo", "Australia/Lord_Howe", "Pacific/Kiritimati"] {
            let zone = try #require(TimeZone(identifier: name))
            for _ in 0..<300 {
                let start = Self.at("2026-01-01T00:00:00Z").addingTimeInterval(Double.random(in: 0...(366 * 86_400), using: &generator).rounded())
                let end = start.addingTimeInterval(Double.random(in: 301...(4 * 86_400), using: &generator).rounded())
                var walked = Set([DailySummaryCalculator.day(of: end, in: zone)])
                var cursor = start
                while cursor < end {
                    walked.insert(DailySummaryCalculator.day(of: cursor, in: zone))
                    cursor = cursor.addingTimeInterval(3600)
                }
                #expect(HeartbeatRules.days(touchedBy: UsageGap(start: start, end: end, method: .heartbeatStale), in: zone) == walked.sorted(), "\(name) \(start) \(end)")
            }
        }
        let midnight = UsageGap(start: Self.at("2026-11-19T23:50:00Z"), end: Self.at("2026-11-20T00:00:00Z"), method: .heartbeatStale)
        #expect(HeartbeatRules.days(touchedBy: midnight, in: .gmt) == ["2026-11-19", "2026-11-20"])
    }

    @Test func theQuietHeartbeatsBounds() {
        let quiet = HeartbeatRules.QuietHeartbeat(HealthReport(heartbeatAt: Self.now, monitoringActive: false, memoryUsageMB: 4, notificationSequence: 9), now: Self.now)
        #expect(quiet.status == .inactive && !quiet.monitoringActive && quiet.sequence == 9 && quiet.memoryUsageMB == 4)
        #expect(quiet.lastHeartbeatAfter == Self.now.addingTimeInterval(-HeartbeatRules.heartbeatGap) && quiet.now == Self.now)
        #expect(quiet.recordWrittenAfter == Self.now.addingTimeInterval(-HeartbeatRules.recordRefresh) && quiet.recordDayEndAfter == Self.now)
        // Each condition on its own turns a heartbeat away.
        let beat = HeartbeatRules.QuietHeartbeat(HealthReport(heartbeatAt: Self.now, monitoringActive: true, notificationSequence: 8), now: Self.now)
        #expect(beat.admits(Self.state()))
        #expect(beat.admits(Self.state(sequence: 8)) && beat.admits(Self.state(sequence: nil)))
        #expect(!beat.admits(Self.state(active: false)))
        #expect(!beat.admits(Self.state(status: .stale)))
        #expect(!beat.admits(Self.state(heard: 301)) && beat.admits(Self.state(heard: 300)))
        #expect(!beat.admits(Self.state(heard: -1)), "a heartbeat after now (a clock set back)")
        #expect(!beat.admits(Self.state(written: 300)) && beat.admits(Self.state(written: 299)))
        #expect(!beat.admits(Self.state(dayEnd: Self.now)))
        #expect(!beat.admits(Self.state(sequence: 6)) && !beat.admits(Self.state(sequence: 5)))
        #expect(!beat.admits(Self.state(sequence: .max)), "a number kept from before §10's range")
        // The answer is the record as of now.
        let record = DeviceHealth.day(
            "2026-11-20", in: .gmt, deviceID: UUID(), lastHeartbeatAt: Self.now.addingTimeInterval(-30), monitoringActive: true, memoryUsageMB: 2,
            missedNotifications: 0, sequenceResets: 0, heartbeatGaps: [], sessions: [], errors: [], errorLimit: 10, now: Self.now.addingTimeInterval(-30)
        )!
        let answer = beat.answer(from: record, memoryUsageMB: 5)
        #expect(answer.lastHeartbeatAt == Self.now && answer.heartbeatGapSeconds == 0 && answer.memoryUsageMB == 5 && answer.asOf == Self.now)
    }

    /// Whatever the one statement admits, the full way would have stored the same and written no
    /// record: taking it changes nothing a parent sees.
    @Test func theQuietHeartbeatAgreesWithTheDecision() {
        let dayEnds = [Self.now.addingTimeInterval(-1), Self.now, Self.endOfDay]
        let states = [true, false].flatMap { active in
            [TrackingStatus.healthy, .stale, .inactive].flatMap { status in
                [-10.0, 0, 30, 299, 300, 301, 900].flatMap { heard in
                    [0.0, 120, 299, 300, 600].flatMap { written in
                        dayEnds.flatMap { dayEnd in
                            [nil, 7].map { stored in Self.state(active: active, heard: heard, sequence: stored, status: status, written: written, dayEnd: dayEnd) }
                        }
                    }
                }
            }
        }
        let reports = [true, false].flatMap { active in
            [nil, 2, 3, 7, 8, 9].flatMap { sequence in
                [nil, 6.5].map { memory in HealthReport(heartbeatAt: Self.now, monitoringActive: active, memoryUsageMB: memory, notificationSequence: sequence) }
            }
        }
        var admitted = 0
        for before in states {
            for report in reports {
                let quiet = HeartbeatRules.QuietHeartbeat(report, now: Self.now)
                guard quiet.admits(before) else { continue }
                admitted += 1
                let decision = Self.decide(before, report)
                #expect(!decision.writesRecord && decision.closedGap == nil && !decision.sequenceChanged, "\(before) \(report)")
                #expect(decision.statusBefore == decision.statusAfter)
                #expect(decision.after == quiet.updating(before))
                #expect(decision.sinceLastHeartbeat == Self.now.timeIntervalSince(before.lastHeartbeatAt))
            }
        }
        #expect(admitted > 0)
    }

    /// The detector's cut-offs say what `status` and `openGap` say.
    @Test func theStalePassAgreesWithTheRules() {
        let pass = HeartbeatRules.StalePass(now: Self.now)
        #expect(pass.staleBefore == HeartbeatRules.staleBefore(Self.now) && pass.now == Self.now)
        for heard in [0.0, 60, 119, 120, 121, 299, 300, 301, 3600] {
            let healthy = Self.state(heard: heard)
            #expect(pass.turnsStale(healthy) == (HeartbeatRules.status(lastHeartbeat: healthy.lastHeartbeatAt, monitoringActive: true, now: Self.now) == .stale))
            let stale = Self.state(heard: heard, status: .stale)
            let due = pass.isDueTrackingCheck(stale, deviceActive: true, trackingAlertedUntil: nil)
            #expect(due == (HeartbeatRules.openGap(lastHeartbeat: stale.lastHeartbeatAt, monitoringActive: true, now: Self.now) != nil))
            #expect(!pass.turnsStale(Self.state(heard: heard, status: .inactive)) && !pass.turnsStale(stale))
        }
        let stale = Self.state(heard: 900, status: .stale)
        #expect(pass.isDueTrackingCheck(stale, deviceActive: true, trackingAlertedUntil: Self.now), "alerted until today began")
        #expect(!pass.isDueTrackingCheck(stale, deviceActive: true, trackingAlertedUntil: Self.endOfDay), "alerted today")
        #expect(!pass.isDueTrackingCheck(stale, deviceActive: false, trackingAlertedUntil: nil), "a revoked device")
        #expect(!pass.isDueTrackingCheck(Self.state(active: false, heard: 900, status: .stale), deviceActive: true, trackingAlertedUntil: nil))
        #expect(!pass.isDueTrackingCheck(Self.state(heard: 900), deviceActive: true, trackingAlertedUntil: nil), "not judged stale yet")
    }
}
