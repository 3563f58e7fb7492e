import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// Erasure is one transaction (§15.3): a failure after every row has gone (a crash, a lost
/// connection, a kill -9 of the server) leaves the database exactly as before, not half-erased;
/// the request then answers an error and may be sent again.
@Suite struct ErasureTransactionTests {
    struct Interrupted: Error {}

    @Test func anErasureInterruptedAtItsEndLeavesEverything() async throws {
        try await withServingDatabase { database, client, url in
            let family = try await RecordEnginePropertyTests.makeFamily(database)
            // On Citus, the family's rows: other tests write to the same database meanwhile.
            let scope: Set<UUID>? = TestPostgres.isShared(url) ? [family.child.familyID] : nil
            let changeLog = ChangeLog(database: database, logger: testLogger)
            let clock = ManualClock()
            var sessions: [UsageSession] = []
            for index in 0..<50 {
                let start: Date = clock.now().addingTimeInterval(-3600 - 60 * Double(index))
                sessions.append(UsageSession(recordID: UUID(), logicalID: "app-\(index)", displayName: "App", category: .learning,
                                             sessionStart: start, sessionEnd: start.addingTimeInterval(10), totalSeconds: 10, earnedPoints: 0))
            }
            _ = try await PostgresUsageIntake(changeLog: changeLog, clock: clock, logger: testLogger).upload(sessions, timeZone: "UTC", child: family.child, items: ItemPath { "records[\($0)]" }, as: .server)
            let before = try await databaseFingerprint(client, families: scope)
            await #expect(throws: Interrupted.self) {
                try await changeLog.write(family: family.child.familyID, as: .server) { locked in
                    let erased = try await locked.erase(devices: [family.child.deviceID], member: nil)
                    #expect(erased > 50)
                    throw Interrupted()
                }
            }
            #expect(try await databaseFingerprint(client, families: scope) == before)
            // Done whole, it is gone.
            try await changeLog.write(family: family.child.familyID, as: .server) { locked in try await locked.erase(devices: [family.child.deviceID], member: nil) }
            let left = try await client.query("SELECT count(*)::int FROM devices WHERE device_id = \(family.child.deviceID)", logger: testLogger).decode(Int.self).first { _ in true }
            #expect(left == 0)
        }
    }
}
