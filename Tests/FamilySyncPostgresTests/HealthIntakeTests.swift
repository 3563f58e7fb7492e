import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The intake's cost (PROTOCOL §10): a heartbeat that changes nothing a parent sees takes
/// the one-statement path; what a parent would see takes the full one.
@Suite struct HealthIntakeTests {
    /// Prepared (`QuietHeartbeatStatement`), and unnamed as behind a pooler that keeps none.
    @Test(arguments: [true, false]) func aQuietHeartbeatIsOneStatement(prepared: Bool) async throws {
        try await withServingDatabase { database, client, _ in
            let family = try await RecordEnginePropertyTests.makeFamily(database)
            let clock = ManualClock()
            let intake = PostgresHealthIntake(
                changeLog: ChangeLog(database: database, logger: testLogger), clock: clock, logger: testLogger, preparedStatements: prepared
            )
            let first = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: 1), by: family.child, as: .server)
            #expect(!first.quiet && first.health?.status == .healthy)
            var quiet = 0
            for beat in 2...20 {
                clock.advance(by: 30)
                let reported = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: Int64(beat)), by: family.child, as: .server)
                if reported.quiet { quiet += 1 }
                #expect(reported.health?.lastHeartbeatAt == clock.now() && reported.health?.status == .healthy)
            }
            // 19 beats over 9.5 minutes: the record is refreshed once, at 5 minutes' age; the rest are quiet.
            #expect(quiet == 18)
            // A skipped number, monitoring off, an error: each the full path.
            clock.advance(by: 30)
            #expect(try await !intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: 30), by: family.child, as: .server).quiet)
            clock.advance(by: 30)
            #expect(try await !intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: false), by: family.child, as: .server).quiet)
            // Monitoring still off: nothing a parent sees changes, quiet again.
            clock.advance(by: 30)
            let off = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: false), by: family.child, as: .server)
            #expect(off.quiet && off.health?.status == .inactive)
            clock.advance(by: 30)
            #expect(try await !intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true), by: family.child, as: .server).quiet, "on again: a status change")
        }
    }

    /// A poll's heartbeat (`answering` false) takes the same quiet path without reading the
    /// `health` record back, and is recorded as fully: the next answered heartbeat sees it.
    @Test func aHeartbeatNotAnsweredIsQuietAndRecorded() async throws {
        try await withServingDatabase { database, client, _ in
            let family = try await RecordEnginePropertyTests.makeFamily(database)
            let clock = ManualClock()
            let intake = PostgresHealthIntake(changeLog: ChangeLog(database: database, logger: testLogger), clock: clock, logger: testLogger)
            // The first is the full path, answered or not: it writes the record.
            let first = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, memoryUsageMB: 5, notificationSequence: 1), by: family.child, answering: false, as: .server)
            #expect(!first.quiet && first.health?.status == .healthy)
            clock.advance(by: 30)
            let unanswered = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, memoryUsageMB: 7, notificationSequence: 2), by: family.child, answering: false, as: .server)
            #expect(unanswered.quiet && unanswered.health == nil && unanswered.sinceLastHeartbeat == 30)
            clock.advance(by: 30)
            let answered = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: 3), by: family.child, as: .server)
            #expect(answered.quiet && answered.sinceLastHeartbeat == 30)
            #expect(answered.health?.memoryUsageMB == 7 && answered.health?.lastHeartbeatAt == clock.now() && answered.health?.missedNotifications == 0)
        }
    }

    /// The day's counters are 32-bit columns: whatever the store is given (skips of 2147483646
    /// with restarts between, a 64-bit sequence number kept from before §10's range was checked,
    /// counters already at their top), each sum stops at 2147483647 and no report fails, on
    /// either path.
    @Test(arguments: [true, false]) func theDaysCountersSaturate(prepared: Bool) async throws {
        try await withServingDatabase { database, client, _ in
            let family = try await RecordEnginePropertyTests.makeFamily(database)
            let clock = ManualClock()
            let intake = PostgresHealthIntake(changeLog: ChangeLog(database: database, logger: testLogger), clock: clock, logger: testLogger, preparedStatements: prepared)
            func beat(_ sequence: Int64?, errors: [ExtensionError] = []) async throws -> PostgresHealthIntake.Reported {
                clock.advance(by: 30)
                let report = HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: sequence, errors: errors)
                return try await intake.report(report, by: family.child, as: .server)
            }
            let top = Int(Int32.max)
            _ = try await beat(0)
            _ = try await beat(Int64(top))
            _ = try await beat(0)
            #expect(try await beat(Int64(top)).health?.missedNotifications == top)
            _ = try await beat(.max)
            #expect(try await beat(.max).quiet, "the same number again, on the one-statement path")

            let (familyID, deviceID) = (family.child.familyID, family.child.deviceID)
            try await database.rows(
                """
                UPDATE device_health_days SET missed_notifications = 2147483647, sequence_resets = 2147483647, heartbeats = 2147483647, gaps_60 = 2147483647,
                    gaps_120 = 2147483647, gaps_300 = 2147483647, gaps_900 = 2147483647, gaps_3600 = 2147483647, gaps_longer = 2147483647,
                    events = 2147483647, failures = 2147483647
                WHERE family_id = \(familyID) AND device_id = \(deviceID)
                """,
                logger: testLogger
            )
            try await database.rows(
                """
                UPDATE device_health SET pending_heartbeats = 2147483647, pending_gaps_60 = 2147483647, pending_gaps_120 = 2147483647, pending_gaps_300 = 2147483647
                WHERE family_id = \(familyID) AND device_id = \(deviceID)
                """,
                logger: testLogger
            )
            #expect(try await beat(.max).quiet)
            let failed = ExtensionError(id: UUID(), timestamp: clock.now(), eventName: "intervalDidStart", action: "record_usage", success: false)
            let full = try await beat(1, errors: [failed])
            #expect(!full.quiet && full.health?.missedNotifications == top && full.health?.sequenceResets == top)
            let counters = try await database.rows(
                """
                SELECT missed_notifications, sequence_resets, heartbeats, gaps_60, gaps_120, gaps_300, gaps_900, gaps_3600, gaps_longer, events, failures
                FROM device_health_days WHERE family_id = \(familyID) AND device_id = \(deviceID)
                """,
                logger: testLogger
            ).decode((Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int).self).map { row in
                [row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10]
            }
            #expect(!counters.isEmpty && counters.allSatisfy { $0.allSatisfy { $0 == top } }, "\(counters)")
        }
    }

    /// A day of health is a fact: what it derives is written, and only the zones written into
    /// change. The detector's tracking pass makes the alert in the member's zone and leaves the
    /// device's zone as it was (no spurious wake, no push of nothing).
    @Test func aTrackingAlertChangesOnlyTheMembersZone() async throws {
        try await withServingDatabase(isolation: .database) { database, client, _ in
            let family = try await RecordEnginePropertyTests.makeFamily(database)
            let clock = ManualClock()
            let changeLog = ChangeLog(database: database, logger: testLogger)
            let intake = PostgresHealthIntake(changeLog: changeLog, clock: clock, logger: testLogger)
            let detector = PostgresStaleDetector(changeLog: changeLog, clock: clock, logger: testLogger)
            _ = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: 1), by: family.child, as: .server)
            clock.advance(by: 20 * 60)
            let pass = HeartbeatRules.StalePass(now: clock.now())
            #expect(try await detector.turnStale(pass, limit: 10) == 1)
            func changed(_ zone: String) async throws -> Int64 {
                try await database.rows(
                    "SELECT changed_seq FROM zones WHERE family_id = \(family.child.familyID) AND zone_name = \(zone)", logger: testLogger
                ).decode(Int64.self).first ?? -1
            }
            let memberID = try #require(try await database.rows(
                "SELECT member_id FROM devices WHERE family_id = \(family.child.familyID) AND device_id = \(family.child.deviceID)", logger: testLogger
            ).decode(UUID?.self).first ?? nil)
            let deviceZone = try #require(family.child.zoneName)
            let (deviceBefore, memberBefore) = (try await changed(deviceZone), try await changed(Member.zoneName(of: memberID)))
            let alerts = try await detector.alertTracking(pass, limit: 10)
            #expect(alerts.map(\.kind) == [.tracking])
            #expect(try await changed(deviceZone) == deviceBefore)
            #expect(try await changed(Member.zoneName(of: memberID)) > memberBefore)
        }
    }
}
