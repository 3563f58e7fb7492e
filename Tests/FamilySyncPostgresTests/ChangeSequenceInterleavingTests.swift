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
@Suite struct ChangeSequenceInterleavingTests {
    @Test func aWriterThatCommitsLateIsNotSkipped() async throws {
        try await withTestDatabase { client, url in
            let family = try await RecordEnginePropertyTests.makeFamily(client)
            let store = PostgresRecordStore(client: client, clock: SystemWallClock(), logger: testLogger)
            let parent = ZoneAccess(family.parents[0])
            let start = try await store.zoneChanges(access: parent, zoneName: family.zone, since: nil, limit: 100)
            let startToken = ChangeToken(familyID: family.child.familyID, deviceID: family.parents[0].deviceID, scope: .zone(name: family.zone, incarnation: start.zone.incarnation), sequence: start.sequence)

            // Writer A, by hand: takes the next number and writes, but does not commit yet.
            let configuration = url.clientConfiguration()
            let writerA = try await PostgresConnection.connect(
                configuration: .init(unixSocketPath: configuration.unixSocketPath!, username: configuration.username, password: nil, database: configuration.database),
                id: 99, logger: testLogger
            )
            try await writerA.query("BEGIN", logger: testLogger)
            let numberA = try await PostgresRecordStore.advance(family.child.familyID, by: 1, on: writerA, logger: testLogger)
            var recordA = Record(
                recordName: "from-a", recordType: "AppConfiguration", fields: RecordEnginePropertyTests.config("a", 1), changeTag: String(numberA, radix: 36),
                deleted: false, createdAt: Date(), createdBy: family.parents[0].deviceID, modifiedAt: Date(), modifiedBy: family.parents[0].deviceID,
                modifiedRole: "parent", clientModifiedAt: Date()
            )
            recordA.changeTag = String(numberA, radix: 36)
            try await PostgresRecordStore.write([(recordA, numberA)], familyID: family.child.familyID, zoneName: family.zone, on: writerA, logger: testLogger)

            // Writer B, through the store, starts now and must wait for A.
            let writerB = Task {
                try await store.modify(access: ZoneAccess(family.parents[1]), zoneName: family.zone, operations: [
                    RecordEnginePropertyTests.operation(.create, "from-b", fields: RecordEnginePropertyTests.config("b", 2))
                ], atomic: true)
            }
            try await Task.sleep(for: .milliseconds(300))

            // A reader now sees neither, and its token does not pass A's number.
            let during = try await store.zoneChanges(access: parent, zoneName: family.zone, since: startToken, limit: 100)
            #expect(during.records.isEmpty)
            #expect(during.sequence < numberA)

            try await writerA.query("COMMIT", logger: testLogger)
            try await writerA.close()
            let b = try await writerB.value
            #expect(b.sequence > numberA)

            var token = startToken
            token.sequence = during.sequence
            let after = try await store.zoneChanges(access: parent, zoneName: family.zone, since: token, limit: 100)
            #expect(after.records.map(\.recordName) == ["from-a", "from-b"])
        }
    }
}
