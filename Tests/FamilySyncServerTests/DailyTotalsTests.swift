import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

extension TestServer {
    /// `POST /v1/usage/totals` for today (UTC) or `date`, with `apps` as JSON objects.
    func reportTotals(_ apps: [String], by device: TestDevice, date: String? = nil, timeZone: String = "UTC") async throws -> Reply {
        let day = date ?? DailySummaryCalculator.day(of: clock.now(), in: TimeZone(identifier: timeZone) ?? .gmt)
        return try await send(
            .post, "/v1/usage/totals", credential: device.credential,
            json: #"{"timeZone":"\#(timeZone)","date":"\#(day)","apps":[\#(apps.joined(separator: ","))]}"#
        )
    }

    static func total(_ app: String, seconds: Int, category: String? = "social_media", pickups: Int? = nil) -> String {
        let category = category.map { #","category":"\#($0)""# } ?? ""
        let pickups = pickups.map { #","pickups":\#($0)"# } ?? ""
        return #"{"logicalID":"\#(app)","displayName":"\#(app.capitalized)","totalSeconds":\#(seconds)\#(category)\#(pickups)}"#
    }
}

/// PROTOCOL §9.2 over HTTP: running totals for a day, the largest kept, merged with sessions.
@Suite struct DailyTotalsTests {
    /// The issue's case: 60 minutes, then 61, is 61 minutes (sent as sessions with new ids it was
    /// 90.5); a late smaller report lowers nothing; the same report again writes nothing.
    @Test func theLargestTotalWinsAndARepeatChangesNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Device.zoneName(forChild: child.deviceID)

            let first = try await server.reportTotals([TestServer.total("tiktok", seconds: 3600, pickups: 4)], by: child)
            #expect(first.status == .ok, "\(String(buffer: first.body))")
            #expect(try first.decode(UsageTotalsResponse.self).summary.totalSeconds == 3600)
            server.clock.advance(by: 900)
            let second = try await server.reportTotals([TestServer.total("tiktok", seconds: 3660, pickups: 3)], by: child).decode(UsageTotalsResponse.self)
            #expect(second.summary.totalSeconds == 3660)
            #expect(second.summary.totalPickups == 4)
            #expect(second.summary.byCategory.map(\.category) == ["social_media"])

            // Later but smaller (a report that arrived late): nothing lowered, nothing written.
            let changes = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: parent.credential).decode(ZoneChangesResponse.self)
            #expect(changes.records.filter { $0.recordType == "DailyTotals" }.count == 1)
            server.clock.advance(by: 900)
            let late = try await server.reportTotals([TestServer.total("tiktok", seconds: 3000)], by: child).decode(UsageTotalsResponse.self)
            #expect(late.summary.totalSeconds == 3660)
            #expect(late.changeToken == second.changeToken)
            let again = try await server.reportTotals([TestServer.total("tiktok", seconds: 3660, pickups: 3)], by: child).decode(UsageTotalsResponse.self)
            #expect(again.summary == second.summary)
            let after = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(changes.changeToken)", credential: parent.credential)
                .decode(ZoneChangesResponse.self)
            #expect(after.records.isEmpty)

            // The summary the parent reads is the same.
            let today = second.summary.date
            let read = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/summaries?from=\(today)&to=\(today)", credential: parent.credential)
            #expect(try read.decode(SummaryList.self).summaries == [second.summary])
        }
    }

    /// An app's day is the larger of its sessions' union and its total; other apps add.
    @Test func sessionsAndTotalsCountAsTheLarger() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            // 30 minutes of khan in sessions; a total of 20 for it counts nothing more.
            let sessions = try await server.upload([server.usageRecord(startingAgo: 3 * 3600, minutes: 30)], by: child)
            #expect(sessions.status == .ok, "\(String(buffer: sessions.body))")
            let small = try await server.reportTotals([TestServer.total("khan", seconds: 1200, category: nil)], by: child).decode(UsageTotalsResponse.self)
            #expect(small.summary.totalSeconds == 1800)
            #expect(small.summary.totalLearningSeconds == 1800)
            // 45 minutes is more than the sessions: it counts, in the sessions' category.
            let large = try await server.reportTotals(
                [TestServer.total("khan", seconds: 2700, category: nil), TestServer.total("tiktok", seconds: 600)], by: child
            ).decode(UsageTotalsResponse.self)
            #expect(large.summary.byApp.map(\.logicalID) == ["khan", "tiktok"])
            #expect(large.summary.byApp.map(\.seconds) == [2700, 600])
            #expect(large.summary.totalLearningSeconds == 2700)
            #expect(large.summary.totalSeconds == 3300)
            // A session after the totals: still the larger per app.
            let more = try await server.upload([server.usageRecord(app: "tiktok", category: "social_media", startingAgo: 2 * 3600, minutes: 15)], by: child)
            let summary = try #require(try more.decode(UsageUploadResponse.self).summaries.first)
            #expect(summary.byApp.map(\.seconds) == [2700, 900])
        }
    }

    /// Without a category, an app is categorised like a session (the device's configuration,
    /// then the bundle table), and a later report without one keeps what was stored.
    @Test func uncategorisedTotalsAreCategorisedAndKeepTheirCategory() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let app = #"{"logicalID":"yt","displayName":"YouTube","bundleIdentifier":"com.google.ios.youtube","totalSeconds":600}"#
            let first = try await server.reportTotals([app], by: child).decode(UsageTotalsResponse.self)
            #expect(first.summary.byApp.first?.category == "entertainment")
            let named = #"{"logicalID":"yt","displayName":"YouTube","category":"learning","totalSeconds":700}"#
            #expect(try await server.reportTotals([named], by: child).decode(UsageTotalsResponse.self).summary.byApp.first?.category == "learning")
            let unnamed = #"{"logicalID":"yt","displayName":"YouTube","bundleIdentifier":"com.google.ios.youtube","totalSeconds":800}"#
            let kept = try await server.reportTotals([unnamed], by: child).decode(UsageTotalsResponse.self)
            #expect(kept.summary.byApp.first?.category == "learning")
            #expect(kept.summary.totalLearningSeconds == 800)
        }
    }

    /// Totals reach a member's budget like sessions: the 80 % and 100 % alerts, once each.
    @Test func totalsCrossingABudgetMakeItsAlertsOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let budget = #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"budget-social","recordType":"Budget","fields":{"budgetID":"social","category":"social_media","period":"daily","dailyMinutes":60,"alertAtPercent":[80,100],"enabled":true}}}]}"#
            #expect(try await server.send(.post, "/v1/zones/\(Member.zoneName(of: member))/records/modify", credential: parent.credential, json: budget).status == .ok)
            var made: [Int] = []
            for minutes in [15, 30, 45, 50, 50, 60, 75] {
                let reply = try await server.reportTotals([TestServer.total("tiktok", seconds: minutes * 60)], by: child)
                #expect(reply.status == .ok, "\(String(buffer: reply.body))")
                made += try reply.decode(UsageTotalsResponse.self).alerts.compactMap(\.percent)
                server.clock.advance(by: 60)
            }
            #expect(made == [80, 100])
        }
    }
}
