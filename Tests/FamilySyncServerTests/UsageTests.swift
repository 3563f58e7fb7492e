import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

extension TestServer {
    /// A usage record as a child sends it, `minutes` long, starting `offset` seconds before now.
    func usageRecord(_ id: UUID = UUID(), app: String = "khan", category: String = "learning", startingAgo offset: TimeInterval, minutes: Int, seconds: Int? = nil, points: Int = 10) -> String {
        let start = clock.now().addingTimeInterval(-offset)
        let end = start.addingTimeInterval(TimeInterval(minutes * 60))
        return """
            {"recordID":"\(id.lowercased)","logicalID":"\(app)","displayName":"\(app.capitalized)","category":"\(category)",
             "sessionStart":"\(Instant.format(start))","sessionEnd":"\(Instant.format(end))","totalSeconds":\(seconds ?? minutes * 60),"earnedPoints":\(points)}
            """
    }

    func upload(_ records: [String], by child: TestDevice, timeZone: String? = "UTC") async throws -> Reply {
        let zone = timeZone.map { #""timeZone":"\#($0)","# } ?? ""
        return try await send(.post, "/v1/usage", credential: child.credential, json: #"{\#(zone)"records":[\#(records.joined(separator: ","))]}"#)
    }
}

/// PROTOCOL §7.2–§7.3 over HTTP: uploads, their idempotence, and the summaries they keep.
@Suite struct UsageTests {
    @Test func aChildsUploadShowsInItsSummariesAndReplaysChangeNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Device.zoneName(forChild: child.deviceID)
            let records = [
                server.usageRecord(startingAgo: 7200, minutes: 10, points: 50),
                server.usageRecord(app: "minecraft", category: "reward", startingAgo: 3600, minutes: 30, seconds: 1200, points: 0),
            ]
            let reply = try await server.upload(records, by: child)
            #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            let first = try reply.decode(UsageUploadResponse.self)
            #expect(first.accepted == 2)
            #expect(first.duplicates == 0)
            let day = try #require(first.summaries.first)
            #expect(first.summaries.count == 1)
            #expect(day.date == DailySummaryCalculator.day(of: server.clock.now().addingTimeInterval(-3600), in: .gmt))
            #expect(day.totalLearningSeconds == 600)
            #expect(day.totalRewardSeconds == 1200)
            #expect(day.totalPointsEarned == 50)
            #expect(day.totalSeconds == 1800)
            #expect(day.appsUsed == ["khan", "minecraft"])
            #expect(day.summaryID == "\(child.deviceID.lowercased)_\(day.date)")

            // The parent gets records and summary through the zone's changes.
            let changes = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: parent.credential).decode(ZoneChangesResponse.self)
            #expect(changes.records.filter { $0.recordType == "UsageRecord" }.count == 2)
            #expect(changes.records.filter { $0.recordType == "DailySummary" }.map(\.recordName) == ["summary-\(day.date)"])

            // The same batch again: duplicates, and not one change in the zone.
            server.clock.advance(by: 60)
            let replay = try await server.upload(records, by: child).decode(UsageUploadResponse.self)
            #expect(replay.accepted == 0)
            #expect(replay.duplicates == 2)
            #expect(replay.summaries == first.summaries)
            let after = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(changes.changeToken)", credential: parent.credential)
                .decode(ZoneChangesResponse.self)
            #expect(after.records.isEmpty)

            // lastSyncAt moved with the upload.
            let me = try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self)
            #expect(me.lastSyncAt == server.clock.now())
        }
    }

    @Test func aRecordSentAgainWithOtherContentIsAConflictAndStoresNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let id = UUID()
            #expect(try await server.upload([server.usageRecord(id, startingAgo: 7200, minutes: 10)], by: child).status == .ok)
            let before = try await server.fingerprint()
            let reply = try await server.upload([server.usageRecord(startingAgo: 600, minutes: 1), server.usageRecord(id, startingAgo: 7200, minutes: 11)], by: child)
            #expect(reply.status == .conflict)
            #expect(reply.error?.field == "records[1]")
            #expect(try await server.fingerprint() == before)
        }
    }

    /// Retries of overlapping batches from several connections at once: every record once, the
    /// summary as if each had been sent once, and no request fails.
    @Test func concurrentOverlappingUploadsCountEachRecordOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let records = (0..<12).map { server.usageRecord(app: "app-\($0 % 3)", startingAgo: TimeInterval(600 * ($0 + 1)), minutes: 5, points: 1) }
            let batches = [Array(records[0..<8]), Array(records[4..<12]), records, Array(records[2..<10]), records]
            let replies = try await withThrowingTaskGroup(of: TestServer.Reply.self) { group in
                for batch in batches { group.addTask { try await server.upload(batch, by: child) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == .ok }, "\(replies.map { String(buffer: $0.body) })")
            let uploads = try replies.map { try $0.decode(UsageUploadResponse.self) }
            #expect(uploads.map(\.accepted).reduce(0, +) == 12)
            let last = try await server.upload(records, by: child).decode(UsageUploadResponse.self)
            #expect(last.duplicates == 12)
            #expect(last.summaries.map(\.totalLearningSeconds).reduce(0, +) == 12 * 300)
            #expect(last.summaries.map(\.totalPointsEarned).reduce(0, +) == 12)
        }
    }

    /// lastSyncAt follows change fetches too (at most once a minute, like lastSeenAt).
    @Test func aChangeFetchIsASync() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            #expect(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).lastSyncAt == nil)
            _ = try await server.databaseToken(child)
            #expect(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).lastSyncAt == server.clock.now())
            server.clock.advance(by: 120)
            let zone = Device.zoneName(forChild: child.deviceID)
            #expect(try await server.send(.get, "/v1/zones/\(zone)/changes", credential: child.credential).status == .ok)
            #expect(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).lastSyncAt == server.clock.now())
        }
    }

    /// Usage reaches the parents through changes, so an upload wakes a parent's held poll.
    @Test func anUploadWakesTheParentsPoll() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let held = try await server.holdPoll(parent, since: try await server.databaseToken(parent))
            #expect(try await server.upload([server.usageRecord(startingAgo: 600, minutes: 5)], by: child).status == .ok)
            #expect(try await held.value.poll?.zones == [Device.zoneName(forChild: child.deviceID)])
        }
    }
}
