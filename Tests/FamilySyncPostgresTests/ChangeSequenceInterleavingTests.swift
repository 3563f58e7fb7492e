import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// Why the family row lock and not a sequence: transaction A takes number n and has not committed;
/// B wants to write. With nextval(), B would take n+1, commit first, and a reader would advance its
/// token to n+1 and never see A's n. Here B cannot take a number until A commits, so the reader's
/// token never passes an uncommitted change.
// Bounded from its database's creation, not by a Swift Testing time limit, which counted the line
// for CREATE DATABASE (over a minute in a full run on a busy machine).
@Suite struct ChangeSequenceInterleavingTests {
    @Test func aWriterThatCommitsLateIsNotSkipped() async throws {
        try await withServingDatabase(isolation: .database) { database, client, url in try await withinBound(.seconds(120), "the interleaving of two writers") {
            let family = try await RecordEnginePropertyTests.makeFamily(database)
            let stores = RecordEnginePropertyTests.stores(database)
            let parent = ZoneAccess(family.parents[0])
            let start = try await stores.reads.zoneChanges(access: parent, zoneName: family.zone, since: nil, limit: 100)
            let startToken = ChangeToken(familyID: family.child.familyID, deviceID: family.parents[0].deviceID, scope: .zone(name: family.zone, incarnation: start.zone.incarnation), sequence: start.sequence)

            // Writer A, by hand: takes the next number and writes, but does not commit yet.
            let writerA = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 99, logger: testLogger)
            try await writerA.query("BEGIN", logger: testLogger)
            let lockedByA = try await LockedFamily.lock(family.child.familyID, on: writerA, logger: testLogger)
            let recordA = Record(
                recordName: "from-a", recordType: "AppConfiguration", fields: RecordEnginePropertyTests.config("a", 1), changeTag: "",
                deleted: false, createdAt: Date(), createdBy: family.parents[0].deviceID, modifiedAt: Date(), modifiedBy: family.parents[0].deviceID,
                modifiedRole: .parent, clientModifiedAt: Date()
            )
            let numberA = try await lockedByA.commit([recordA], into: family.zone).sequence

            // Writer B, through the store, starts now and must wait for A.
            let writerB = Task {
                try await stores.writes.modify(access: ZoneAccess(family.parents[1]), zoneName: family.zone, operations: [
                    RecordEnginePropertyTests.operation(.create, "from-b", fields: RecordEnginePropertyTests.config("b", 2))
                ], atomic: true, records: ItemPath { "operations[\($0)].record" }, as: .server)
            }
            // Until B is seen waiting for A's lock: a sleep would pass with B not yet started. (In
            // this database: the cluster is every test's, and another's lock wait is not B's. On
            // Citus the wait is on the worker that holds the family.)
            let node = try await TestCitus.node(holding: family.child.familyID, in: url, client: client)
            let observer = PostgresClient(configuration: node.clientConfiguration(), backgroundLogger: testLogger)
            let observing = Task { await observer.run() }
            defer { observing.cancel() }
            try await OpenWaits.during("writer B waiting for writer A's lock", limit: .seconds(120)) {
                while try await observer.query(
                    "SELECT count(*)::int FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()", logger: testLogger
                ).decode(Int.self).first(where: { _ in true }) == 0 {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }

            // A reader now sees neither, and its token does not pass A's number.
            let during = try await stores.reads.zoneChanges(access: parent, zoneName: family.zone, since: startToken, limit: 100)
            #expect(during.records.isEmpty)
            #expect(during.sequence < numberA)

            try await writerA.query("COMMIT", logger: testLogger)
            try await writerA.close()
            let b = try await writerB.value
            #expect(b.sequence > numberA)

            var token = startToken
            token.sequence = during.sequence
            let after = try await stores.reads.zoneChanges(access: parent, zoneName: family.zone, since: token, limit: 100)
            #expect(after.records.map(\.recordName) == ["from-a", "from-b"])
        } }
    }
}
