import FamilySyncCore
import FamilySyncPostgres
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The outbox's claims (§12) between senders, at the store: concurrent claims never share a row,
/// and a claim whose sender died ends, so that another sender sends the row.
@Suite struct PushClaimTests {
    /// A family with a registered parent and `count` alert rows due at the clock's now.
    static func queue(_ count: Int, on server: TestServer) async throws -> TestDevice {
        let parent = try await server.createFamily()
        let token = String(repeating: "ab", count: 32)
        let body = #"{"provider":"apns","token":"\#(token)","topic":"com.example.app","environment":"production"}"#
        #expect(try await server.send(.put, "/v1/devices/me/push", credential: parent.credential, json: body).status == .noContent)
        let now = server.clock.now()
        try await server.postgres.query(
            """
            INSERT INTO push_outbox (family_id, device_id, kind, payload, created_at, not_before, expires_at)
            SELECT \(parent.familyID), \(parent.deviceID), 'alert', jsonb_build_object('title', 'Alert ' || n, 'body', 'Body'), \(now), \(now),
                   \(now.addingTimeInterval(3600))
            FROM generate_series(1, \(count)) AS n
            """,
            logger: testLogger
        )
        return parent
    }

    @Test func concurrentClaimsNeverShareARow() async throws {
        try await withTestServer(isolation: .database) { server in
            _ = try await Self.queue(300, on: server)
            let claims = PostgresPushClaims(database: server.database, logger: testLogger)
            let now = server.clock.now()
            let batches = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for _ in 0..<4 {
                    group.addTask { try await claims.claim(now: now, limit: 100, claimFor: 30, minimumInterval: 30).map(\.pushID) }
                }
                return try await group.reduce(into: [[Int64]]()) { $0.append($1) }
            }
            let all = batches.flatMap { $0 }
            #expect(all.count == 300, "every row claimed once: \(batches.map(\.count))")
            #expect(Set(all).count == all.count)
            // All held: nothing more to claim.
            #expect(try await claims.claim(now: now, limit: 100, claimFor: 30, minimumInterval: 30).isEmpty)
        }
    }

    /// A claim locks one family's rows at a time (Citus locks only within a shard): a batch
    /// spans families, the earliest due first, and claims at once across families still never
    /// share a row.
    @Test func claimsSpanFamiliesAndNeverShareARow() async throws {
        try await withTestServer(isolation: .database) { server in
            for _ in 0..<4 { _ = try await Self.queue(30, on: server) }
            let claims = PostgresPushClaims(database: server.database, logger: testLogger)
            let now = server.clock.now()
            let first = try await claims.claim(now: now, limit: 50, claimFor: 30, minimumInterval: 30)
            #expect(first.count == 50 && Set(first.map(\.familyID)).count == 2)
            let batches = try await withThrowingTaskGroup(of: [PostgresPushClaims.Claim].self) { group in
                for _ in 0..<4 {
                    group.addTask { try await claims.claim(now: now, limit: 50, claimFor: 30, minimumInterval: 30) }
                }
                return try await group.reduce(into: [[PostgresPushClaims.Claim]]()) { $0.append($1) }
            }
            let all = (first + batches.flatMap { $0 }).map(\.pushID)
            #expect(all.count == 120 && Set(all).count == 120, "every row claimed once: \(first.count), \(batches.map(\.count))")
            #expect(batches.allSatisfy { $0.count <= 50 })
            #expect(try await claims.claim(now: now, limit: 100, claimFor: 30, minimumInterval: 30).isEmpty)
        }
    }

    @Test func aDeadSendersClaimEndsAndAnotherSendsTheRow() async throws {
        try await withTestServer(isolation: .database) { server in
            let parent = try await Self.queue(3, on: server)
            let claims = PostgresPushClaims(database: server.database, logger: testLogger)
            let start = server.clock.now()
            let taken = try await claims.claim(now: start, limit: 10, claimFor: 30, minimumInterval: 30)
            #expect(taken.count == 3 && taken.allSatisfy { $0.delivery?.registration.token == String(repeating: "ab", count: 32) })
            #expect(taken.allSatisfy { $0.delivery?.deviceID == parent.deviceID && $0.delivery?.attempts == 1 })
            // Its sender dies holding them: within the claim, nobody else may send them.
            #expect(try await claims.claim(now: start.addingTimeInterval(29), limit: 10, claimFor: 30, minimumInterval: 30).isEmpty)
            // After it, another sender claims them, a second attempt; none lost.
            let again = try await claims.claim(now: start.addingTimeInterval(30), limit: 10, claimFor: 30, minimumInterval: 30)
            #expect(Set(again.map(\.pushID)) == Set(taken.map(\.pushID)))
            #expect(again.allSatisfy { $0.delivery?.attempts == 2 })
            let (count, _) = try await claims.depth(minimumInterval: 30)
            #expect(count == 3)
        }
    }

    @Test func aSentBackgroundRowMergedIntoMeanwhileStaysForTheInterval() async throws {
        try await withTestServer(isolation: .database) { server in
            let parent = try await Self.queue(0, on: server)
            let now = server.clock.now()
            try await server.postgres.query(
                """
                INSERT INTO push_outbox (family_id, device_id, kind, payload, created_at, not_before, expires_at)
                VALUES (\(parent.familyID), \(parent.deviceID), 'background', '{"zones": ["family"]}', \(now), \(now), \(now.addingTimeInterval(3600)))
                """,
                logger: testLogger
            )
            let claims = PostgresPushClaims(database: server.database, logger: testLogger)
            let claim = try #require(try await claims.claim(now: now, limit: 10, claimFor: 30, minimumInterval: 30).first)
            // A change merges into the row while it is being sent.
            try await server.postgres.query("UPDATE push_outbox SET version = version + 1", logger: testLogger)
            try await claims.settle(claim, .sent(at: now))
            #expect(try await claims.depth(minimumInterval: 30).count == 1)
            #expect(try await claims.claim(now: now.addingTimeInterval(29), limit: 10, claimFor: 30, minimumInterval: 30).isEmpty, "within the interval")
            let later = try await claims.claim(now: now.addingTimeInterval(30), limit: 10, claimFor: 30, minimumInterval: 30)
            #expect(later.map(\.pushID) == [claim.pushID])
            try await claims.settle(later[0], .sent(at: now.addingTimeInterval(30)))
            #expect(try await claims.depth(minimumInterval: 30).count == 0)
        }
    }
}
