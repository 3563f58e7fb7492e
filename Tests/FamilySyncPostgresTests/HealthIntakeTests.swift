import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The intake's cost (PROTOCOL §10): a heartbeat that changes nothing a parent sees takes
/// the one-statement path; what a parent would see takes the full one.
@Suite struct HealthIntakeTests {
    @Test func aQuietHeartbeatIsOneStatement() async throws {
        try await withTestDatabase { client, _ in
            let family = try await RecordEnginePropertyTests.makeFamily(client)
            let clock = ManualClock()
            let intake = PostgresHealthIntake(changeLog: ChangeLog(database: Database.underTest(client), logger: testLogger), clock: clock, logger: testLogger)
            let first = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: 1), by: family.child)
            #expect(!first.quiet && first.health.status == .healthy)
            var quiet = 0
            for beat in 2...20 {
                clock.advance(by: 30)
                let reported = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: Int64(beat)), by: family.child)
                if reported.quiet { quiet += 1 }
                #expect(reported.health.lastHeartbeatAt == clock.now() && reported.health.status == .healthy)
            }
            // 19 beats over 9.5 minutes: the record is refreshed once, at 5 minutes' age; the rest are quiet.
            #expect(quiet == 18)
            // A skipped number, monitoring off, an error: each the full path.
            clock.advance(by: 30)
            #expect(try await !intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: 30), by: family.child).quiet)
            clock.advance(by: 30)
            #expect(try await !intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: false), by: family.child).quiet)
            // Monitoring still off: nothing a parent sees changes, quiet again.
            clock.advance(by: 30)
            let off = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: false), by: family.child)
            #expect(off.quiet && off.health.status == .inactive)
            clock.advance(by: 30)
            #expect(try await !intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true), by: family.child).quiet, "on again: a status change")
        }
    }

    /// A day of health is a fact: what it derives is written, and only the zones written into
    /// change. The detector's tracking pass makes the alert in the member's zone and leaves the
    /// device's zone as it was (no spurious wake, no push of nothing).
    @Test func aTrackingAlertChangesOnlyTheMembersZone() async throws {
        try await withTestDatabase { client, _ in
            let family = try await RecordEnginePropertyTests.makeFamily(client)
            let clock = ManualClock()
            let changeLog = ChangeLog(database: Database.underTest(client), logger: testLogger)
            let intake = PostgresHealthIntake(changeLog: changeLog, clock: clock, logger: testLogger)
            let detector = PostgresStaleDetector(changeLog: changeLog, clock: clock, logger: testLogger)
            _ = try await intake.report(HealthReport(heartbeatAt: clock.now(), monitoringActive: true, notificationSequence: 1), by: family.child)
            clock.advance(by: 20 * 60)
            let pass = HeartbeatRules.StalePass(now: clock.now())
            #expect(try await detector.turnStale(pass, limit: 10) == 1)
            func changed(_ zone: String) async throws -> Int64 {
                try await Database.underTest(client).rows(
                    "SELECT changed_seq FROM zones WHERE family_id = \(family.child.familyID) AND zone_name = \(zone)", logger: testLogger
                ).decode(Int64.self).first ?? -1
            }
            let memberID = try #require(try await Database.underTest(client).rows(
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
