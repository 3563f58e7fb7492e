import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// PROTOCOL §9.3–§9.4 over HTTP: a member's budget, the alerts uploads make (once each, across the
/// member's devices, under concurrency), budget status, listing and dismissal.
@Suite struct BudgetAlertFlowTests {
    /// 60 minutes of reward a day, alerts at 80 % and 100 %.
    static let budget = #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"budget-fun","recordType":"Budget","fields":{"budgetID":"fun","category":"reward","period":"daily","dailyMinutes":60,"alertAtPercent":[80,100],"enabled":true}}}]}"#

    /// A reward session of `minutes` ending `endingAgo` seconds before the test clock's now.
    static func session(_ server: TestServer, app: String, minutes: Int, endingAgo: TimeInterval) -> String {
        let end = server.clock.now().addingTimeInterval(-endingAgo)
        let start = end.addingTimeInterval(TimeInterval(-minutes * 60))
        return """
            {"recordID":"\(UUID().lowercased)","logicalID":"\(app)","displayName":"\(app)","category":"reward",
             "sessionStart":"\(Instant.format(start))","sessionEnd":"\(Instant.format(end))","totalSeconds":\(minutes * 60),"earnedPoints":0}
            """
    }

    static func upload(_ server: TestServer, _ device: TestDevice, _ records: [String]) async throws -> UsageUploadResponse {
        let reply = try await server.send(.post, "/v1/usage", credential: device.credential, json: #"{"timeZone":"UTC","records":[\#(records.joined(separator: ","))]}"#)
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
        return try reply.decode(UsageUploadResponse.self)
    }

    /// As a client does: a `503 TRY_AGAIN_LATER` (the test server's four connections all queued on
    /// the family's lock past the lease bound) changed nothing and is sent again.
    static func uploadRetrying(_ server: TestServer, _ device: TestDevice, _ records: [String]) async throws -> UsageUploadResponse {
        for _ in 0..<100 {
            let reply = try await server.send(.post, "/v1/usage", credential: device.credential, json: #"{"timeZone":"UTC","records":[\#(records.joined(separator: ","))]}"#)
            if reply.status == .ok { return try reply.decode(UsageUploadResponse.self) }
            #expect(reply.status == .serviceUnavailable, "\(String(buffer: reply.body))")
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("the upload never went through")
    }

    @Test func uploadsAcrossTheMembersDevicesMakeEachAlertOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, ipad) = try await server.pair(by: parent)
            let member = try await server.memberID(of: ipad)
            let mac = try await server.pair(into: member, by: parent, platform: .macos, timeZone: "UTC")
            let zone = Member.zoneName(of: member)
            #expect(try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: Self.budget).status == .ok)

            // 30 minutes on the iPad: 50 %, nothing. 20 more on the Mac: 83 %, the 80 % alert.
            let first = [Self.session(server, app: "game", minutes: 30, endingAgo: 7200)]
            #expect(try await Self.upload(server, ipad, first).alerts.isEmpty)
            let second = try await Self.upload(server, mac, [Self.session(server, app: "video", minutes: 20, endingAgo: 3600)])
            #expect(second.alerts.map(\.percent) == [80])
            #expect(second.alerts.first?.budgetID == "fun" && second.alerts.first?.memberId == member)
            // The same upload again: duplicates, no alert.
            let again = try await Self.upload(server, ipad, first)
            #expect(again.duplicates == 1 && again.alerts.isEmpty)
            // 15 more: 108 %, the 100 % alert, and not the 80 % again.
            let third = try await Self.upload(server, ipad, [Self.session(server, app: "game", minutes: 15, endingAgo: 600)])
            #expect(third.alerts.map(\.percent) == [100])

            let day = DailySummaryCalculator.day(of: server.clock.now().addingTimeInterval(-600), in: .gmt)
            let status = try await server.send(.get, "/v1/members/\(member.lowercased)/budget-status?date=\(day)", credential: mac.credential)
            #expect(status.status == .ok, "\(String(buffer: status.body))")
            let entry = try #require(try status.decode(BudgetStatusResponse.self).budgets.first)
            #expect(entry.budgetMinutes == 60 && entry.usedMinutes == 65 && entry.remainingMinutes == 0 && entry.percent == 108 && entry.isOverBudget)

            // Listing, dismissal (idempotent), and the list without the dismissed one.
            let listURI = "/v1/members/\(member.lowercased)/alerts?from=\(day)&to=\(day)"
            let listed = try await server.send(.get, listURI, credential: parent.credential).decode(AlertList.self).alerts
            #expect(Set(listed.compactMap(\.percent)) == [80, 100])
            let eighty = try #require(listed.first { $0.percent == 80 })
            let dismissed = try await server.send(.post, "/v1/alerts/\(eighty.alertID.lowercased)/dismiss", credential: parent.credential)
            #expect(dismissed.status == .ok, "\(String(buffer: dismissed.body))")
            let stamp = try #require(try dismissed.decode(AlertBody.self).dismissedAt)
            server.clock.advance(by: 60)
            let twice = try await server.send(.post, "/v1/alerts/\(eighty.alertID.lowercased)/dismiss", credential: parent.credential).decode(AlertBody.self)
            #expect(twice.dismissedAt == stamp)
            #expect(try await server.send(.get, listURI, credential: parent.credential).decode(AlertList.self).alerts.map(\.percent) == [100])
            #expect(try await server.send(.get, listURI + "&includeDismissed=true", credential: parent.credential).decode(AlertList.self).alerts.count == 2)
            // A child does not dismiss.
            #expect(try await server.send(.post, "/v1/alerts/\(eighty.alertID.lowercased)/dismiss", credential: ipad.credential).status == .forbidden)
        }
    }

    /// Two children with a budget of the same id: each gets its own alerts, and dismissing one
    /// child's leaves the other's (their ids once came from the budget, day and percent alone).
    @Test func siblingsWithTheSameBudgetHaveTheirOwnAlerts() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, emma) = try await server.pair(by: parent)
            let (_, noah) = try await server.pair(by: parent)
            var alerts: [AlertBody] = []
            for child in [emma, noah] {
                let member = try await server.memberID(of: child)
                #expect(try await server.send(.post, "/v1/zones/\(Member.zoneName(of: member))/records/modify", credential: parent.credential, json: Self.budget).status == .ok)
                alerts += try await Self.upload(server, child, [Self.session(server, app: "game", minutes: 50, endingAgo: 600)]).alerts
            }
            #expect(alerts.map(\.percent) == [80, 80])
            #expect(Set(alerts.map(\.alertID)).count == 2)
            let dismissed = try await server.send(.post, "/v1/alerts/\(alerts[1].alertID.lowercased)/dismiss", credential: parent.credential)
            #expect(try dismissed.decode(AlertBody.self).memberId == alerts[1].memberId)
            let day = try #require(alerts[0].date)
            let emmas = try await server.send(.get, "/v1/members/\(alerts[0].memberId.lowercased)/alerts?from=\(day)&to=\(day)", credential: parent.credential)
            #expect(try emmas.decode(AlertList.self).alerts.map(\.alertID) == [alerts[0].alertID])
        }
    }

    /// Concurrent uploads from two devices of the member, in any order and repeated: each of the
    /// budget's alerts exists once, and the uploads' answers name each alert once between them.
    @Test func concurrentUploadsMakeEachAlertExactlyOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, ipad) = try await server.pair(by: parent)
            let member = try await server.memberID(of: ipad)
            let mac = try await server.pair(into: member, by: parent, platform: .macos, timeZone: "UTC")
            #expect(try await server.send(.post, "/v1/zones/\(Member.zoneName(of: member))/records/modify", credential: parent.credential, json: Self.budget).status == .ok)
            // Twelve 10-minute sessions (120 minutes, 200 %), each sent twice, from both devices at once.
            var sessions: [(TestDevice, String)] = []
            for index in 0..<12 {
                let ago = TimeInterval(600 + index * 700)
                sessions.append((index % 2 == 0 ? ipad : mac, Self.session(server, app: "app\(index)", minutes: 10, endingAgo: ago)))
            }
            let answers = try await withThrowingTaskGroup(of: [AlertBody].self) { group in
                for (device, record) in sessions + sessions.reversed() {
                    group.addTask { try await Self.uploadRetrying(server, device, [record]).alerts }
                }
                return try await group.reduce(into: [AlertBody]()) { $0 += $1 }
            }
            #expect(answers.compactMap(\.percent).sorted() == [80, 100], "each alert is announced once")
            let day = DailySummaryCalculator.day(of: server.clock.now().addingTimeInterval(-600), in: .gmt)
            let stored = try await server.send(.get, "/v1/members/\(member.lowercased)/alerts?from=\(day)&to=\(day)&includeDismissed=true", credential: parent.credential)
            #expect(try stored.decode(AlertList.self).alerts.compactMap(\.percent).sorted() == [80, 100])
        }
    }

    /// The budget seed: 30 hours a month of social media (60 minutes a day in November); usage
    /// reported in that category crosses 80 % and 100 %, and the summary says where time went.
    @Test func aMonthlySocialMediaBudget() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, phone) = try await server.pair(by: parent)
            let member = try await server.memberID(of: phone)
            let budget = #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"budget-social","recordType":"Budget","fields":{"budgetID":"social","category":"social_media","period":"monthly","monthlyHours":30,"enabled":true}}}]}"#
            #expect(try await server.send(.post, "/v1/zones/\(Member.zoneName(of: member))/records/modify", credential: parent.credential, json: budget).status == .ok)
            func record(_ minutes: Int, endingAgo: TimeInterval) -> String {
                let end = server.clock.now().addingTimeInterval(-endingAgo)
                return """
                    {"recordID":"\(UUID().lowercased)","logicalID":"insta","displayName":"Instagram","bundleIdentifier":"com.burbn.instagram","category":"social_media",
                     "sessionStart":"\(Instant.format(end.addingTimeInterval(TimeInterval(-minutes * 60))))","sessionEnd":"\(Instant.format(end))","totalSeconds":\(minutes * 60),"pickups":4}
                    """
            }
            let first = try await Self.upload(server, phone, [record(50, endingAgo: 7200)])
            #expect(first.alerts.map(\.percent) == [80])
            #expect(first.summaries.first?.byCategory.map(\.category) == ["social_media"])
            #expect(first.summaries.first?.totalPickups == 4 && first.summaries.first?.totalSeconds == 3000)
            #expect(first.summaries.first?.totalLearningSeconds == 0 && first.summaries.first?.totalRewardSeconds == 0)
            let second = try await Self.upload(server, phone, [record(15, endingAgo: 600)])
            #expect(second.alerts.map(\.percent) == [100])
            #expect(second.alerts.first?.message.contains("social_media") == true)
        }
    }
}
