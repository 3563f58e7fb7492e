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
}
