import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

/// One family's writes never take another family's connections: a family's writers
/// take turns in the instance before they lease one, its line is bounded, and what is shed says
/// why. Family A's row lock is held from outside (as a long transaction of A's would), so A's
/// writers stay stuck for as long as the test needs, with no timing to get right.
@Suite struct FamilyIsolationTests {
    /// Holds `family`'s row lock on a connection of its own until `body` ends.
    static func holdingLock<Result: Sendable>(of family: UUID, in server: TestServer, _ body: () async throws -> Result) async throws -> Result {
        let logger = Logger(label: "lock")
        let connection = try await PostgresConnection.connect(configuration: try server.databaseURL.connectionConfiguration(), id: 1, logger: logger)
        do {
            try await connection.run("BEGIN", logger: logger)
            try await connection.run("SELECT 1 FROM families WHERE family_id = \(family) FOR UPDATE", logger: logger)
            let result = try await body()
            try await connection.run("COMMIT", logger: logger)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static func waitForWriters(_ count: Int, of family: UUID, in server: TestServer) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while server.database.families.writers(of: family) < count {
            guard ContinuousClock.now < deadline else { throw TestFailure("\(count) writers never queued") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The test server's pool has four connections. Twelve writes of A stuck on A's lock held one
    /// of them; without turns they held all four, and B's write waited 3 s for a connection and
    /// was answered 503 (the first defect, in miniature).
    @Test func aStuckFamilysWritesLeaveConnectionsForAnother() async throws {
        try await withTestServer(familyWrites: .init(waiting: 32, wait: .seconds(60))) { server in
            let a = try await server.createFamily(), b = try await server.createFamily()
            let (_, childA) = try await server.pair(by: a)
            let (_, childB) = try await server.pair(by: b)
            let zoneA = "child-\(childA.deviceID.lowercased)", zoneB = "child-\(childB.deviceID.lowercased)"
            let stuck = try await Self.holdingLock(of: a.familyID, in: server) {
                let writes = (0..<12).map { index in
                    Task { try await server.send(.post, "/v1/zones/\(zoneA)/records/modify", credential: a.credential, json: TestServer.write(zoneA, "app-\(index)")) }
                }
                try await Self.waitForWriters(12, of: a.familyID, in: server)
                let write = try await server.send(.post, "/v1/zones/\(zoneB)/records/modify", credential: b.credential, json: TestServer.write(zoneB, "app-b"), retryingShed: false)
                #expect(write.status == .ok, "\(String(buffer: write.body))")
                let read = try await server.send(.get, "/v1/zones/\(zoneB)/changes", credential: b.credential, retryingShed: false)
                #expect(read.status == .ok, "\(String(buffer: read.body))")
                return writes
            }
            // Once A's lock is free, every one of its writes is done, in turn.
            for write in stuck { #expect(try await write.value.status == .ok) }
        }
    }

    /// Past its line's bound a family is answered at once that it is busy, with Retry-After and
    /// the metric, while another family is served; its writers already in line still go through.
    @Test func aFullLineShedsThatFamilyAlone() async throws {
        try await withTestServer(familyWrites: .init(waiting: 2, wait: .seconds(60))) { server in
            let a = try await server.createFamily(), b = try await server.createFamily()
            let (_, childA) = try await server.pair(by: a)
            let zoneA = "child-\(childA.deviceID.lowercased)"
            let before = try await Self.shed(.familyBusy, in: server)
            let queued = try await Self.holdingLock(of: a.familyID, in: server) {
                let writes = (0..<3).map { index in
                    Task { try await server.send(.post, "/v1/zones/\(zoneA)/records/modify", credential: a.credential, json: TestServer.write(zoneA, "app-\(index)"), retryingShed: false) }
                }
                try await Self.waitForWriters(3, of: a.familyID, in: server)
                let shed = try await server.send(.post, "/v1/zones/\(zoneA)/records/modify", credential: a.credential, json: TestServer.write(zoneA, "app-x"), retryingShed: false)
                #expect(shed.status == .serviceUnavailable)
                #expect(shed.errorCode == "TRY_AGAIN_LATER")
                #expect(shed.error?.reason == TryAgainReason.familyBusy.reason)
                #expect(shed.headers[.retryAfter] == "1")
                #expect(try await server.send(.post, "/v1/zones/family/records/modify", credential: b.credential, json: TestServer.write("family", "note"), retryingShed: false).status == .ok)
                return writes
            }
            for write in queued { #expect(try await write.value.status == .ok) }
            #expect(try await Self.shed(.familyBusy, in: server) >= before + 1)
            // The shed write changed nothing: only the three queued ones are in A's zone.
            let changes = try await server.send(.get, "/v1/zones/\(zoneA)/changes", credential: a.credential).decode(ZoneChangesResponse.self)
            #expect(Set(changes.records.map(\.recordName)) == ["app-0", "app-1", "app-2"])
        }
    }

    /// A full line refuses the family's next write before its body is read (`BusyFamilyRefusal`):
    /// on every route whose requests write in the family's turn, a body that is not even JSON is
    /// answered `family_busy`, not 400, and no writer joins the line. The family's reads and another
    /// family's writes are served meanwhile, and nothing changed.
    @Test func aFullLineRefusesTheFamilysWritesBeforeTheirBodies() async throws {
        try await withTestServer(familyWrites: .init(waiting: 1, wait: .seconds(60))) { server in
            let a = try await server.createFamily(), b = try await server.createFamily()
            let (_, childA) = try await server.pair(by: a)
            let zoneA = "child-\(childA.deviceID.lowercased)"
            let queued = try await Self.holdingLock(of: a.familyID, in: server) {
                // One writer holds the turn (stuck on the lock), one waits: the line of one is full.
                let writes = (0..<2).map { index in
                    Task { try await server.send(.post, "/v1/zones/\(zoneA)/records/modify", credential: a.credential, json: TestServer.write(zoneA, "app-\(index)"), retryingShed: false) }
                }
                try await Self.waitForWriters(2, of: a.familyID, in: server)
                let before = try await server.fingerprint()
                for route in BusyFamilyRefusal.routes.sorted() {
                    let parts = route.split(separator: " ")
                    let path = parts[1].replacingOccurrences(of: "{zone}", with: zoneA).replacingOccurrences(of: "{id}", with: childA.deviceID.lowercased)
                    for credential in [a.credential, childA.credential] {
                        let reply = try await server.send(
                            .init(String(parts[0]))!, path, credential: credential, json: "not json", headers: [("Idempotency-Key", UUID().uuidString)], retryingShed: false
                        )
                        #expect(reply.status == .serviceUnavailable && reply.error?.reason == TryAgainReason.familyBusy.reason, "\(route): \(reply.status) \(String(buffer: reply.body))")
                        #expect(reply.headers[.retryAfter] == "1")
                    }
                }
                #expect(server.database.families.writers(of: a.familyID) == 2)
                #expect(try await server.fingerprint() == before)
                #expect(try await server.send(.get, "/v1/zones/family/changes", credential: a.credential, retryingShed: false).status == .ok)
                #expect(try await server.send(.post, "/v1/zones/family/records/modify", credential: b.credential, json: TestServer.write("family", "note"), retryingShed: false).status == .ok)
                return writes
            }
            for write in queued { #expect(try await write.value.status == .ok) }
        }
    }

    /// A writer that waited its whole turn's wait is shed saying the family is busy, not that the
    /// database is away.
    @Test func aWriteThatWaitedTooLongIsShedAsBusy() async throws {
        try await withTestServer(familyWrites: .init(waiting: 8, wait: .milliseconds(300))) { server in
            let a = try await server.createFamily()
            let (_, childA) = try await server.pair(by: a)
            let zoneA = "child-\(childA.deviceID.lowercased)"
            let first = try await Self.holdingLock(of: a.familyID, in: server) {
                let first = Task { try await server.send(.post, "/v1/zones/\(zoneA)/records/modify", credential: a.credential, json: TestServer.write(zoneA, "app-1"), retryingShed: false) }
                try await Self.waitForWriters(1, of: a.familyID, in: server)
                let second = try await server.send(.post, "/v1/zones/\(zoneA)/records/modify", credential: a.credential, json: TestServer.write(zoneA, "app-2"), retryingShed: false)
                #expect(second.status == .serviceUnavailable)
                #expect(second.error?.reason == TryAgainReason.familyBusy.reason)
                #expect(server.database.families.writers(of: a.familyID) == 1)
                return first
            }
            #expect(try await first.value.status == .ok)
        }
    }

    /// Every connection of the pool in use for the whole wait: 503 saying the pool is at its
    /// limit, not that the database is unavailable (the second defect). The wait is the
    /// test server's (`testServerLeaseWait`, 30 s), not a serving instance's 3 s: with 3 s, the
    /// family's creation below failed whenever the server's first connect took longer, as on CI.
    @Test func aPoolAtItsLimitSaysSo() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            // The test server's pool has four connections; each holder keeps one until released.
            let releases = (0..<4).map { _ in SingleOutcome<Void>() }
            let leased = Leased()
            let holders = releases.map { release in
                Task {
                    try await server.database.leasing { _ in
                        leased.count.add(1, ordering: .relaxed)
                        try await release.value
                    }
                }
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while leased.count.load(ordering: .relaxed) < 4 {
                guard ContinuousClock.now < deadline else { throw TestFailure("the pool's four connections were never leased") }
                try await Task.sleep(for: .milliseconds(20))
            }
            let reply = try await server.send(.get, "/v1/devices", credential: parent.credential, retryingShed: false)
            #expect(reply.status == .serviceUnavailable)
            #expect(reply.error?.reason == TryAgainReason.poolExhausted.reason, "\(String(buffer: reply.body))")
            #expect(reply.headers[.retryAfter] == "1")
            for release in releases { release.resolve(.success(())) }
            for holder in holders { try await holder.value }
            #expect(try await server.send(.get, "/v1/devices", credential: parent.credential).status == .ok)
        }
    }

    final class Leased: Sendable {
        let count = Atomic<Int>(0)
    }

    /// `familysync_requests_shed_total{reason}` as /metrics reports it now.
    static func shed(_ reason: TryAgainReason, in server: TestServer) async throws -> Double {
        let metrics = String(buffer: try await server.send(.get, "/metrics").body)
        let series = "familysync_requests_shed_total{reason=\"\(reason.rawValue)\"}"
        let line = metrics.split(separator: "\n").first { $0.hasPrefix(series) }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }
}
