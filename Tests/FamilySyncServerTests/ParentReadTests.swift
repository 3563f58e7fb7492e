import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// PROTOCOL §7.4: what a parent reads of a child's usage.
@Suite struct ParentReadTests {
    /// A child with usage on two days (UTC), 48 and 24 hours before the server's clock.
    static func childWithUsage(_ server: TestServer) async throws -> (parent: TestDevice, child: TestDevice, days: [String]) {
        let parent = try await server.createFamily()
        let (_, child) = try await server.pair(by: parent)
        let records = [
            server.usageRecord(app: "khan", startingAgo: 48 * 3600, minutes: 10, points: 5),
            server.usageRecord(app: "minecraft", category: "reward", startingAgo: 48 * 3600 - 900, minutes: 20, points: 0),
            server.usageRecord(app: "khan", startingAgo: 24 * 3600, minutes: 30, points: 15),
        ]
        #expect(try await server.upload(records, by: child).status == .ok)
        let now = server.clock.now()
        return (parent, child, [now.addingTimeInterval(-48 * 3600), now.addingTimeInterval(-24 * 3600)].map { DailySummaryCalculator.day(of: $0, in: .gmt) })
    }

    static func date(_ day: String, plus days: Int) -> String {
        DailySummaryCalculator.day(of: DailySummaryCalculator.interval(of: day, in: .gmt)!.start.addingTimeInterval(TimeInterval(days) * 86_400), in: .gmt)
    }

    @Test func summariesForARangeIncludeDaysWithoutUsage() async throws {
        try await withTestServer { server in
            let (parent, child, days) = try await Self.childWithUsage(server)
            let from = Self.date(days[0], plus: -1), to = Self.date(days[1], plus: 1)
            let reply = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/summaries?from=\(from)&to=\(to)", credential: parent.credential)
            #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            let list = try reply.decode(SummaryList.self).summaries
            #expect(list.map(\.date) == [from, days[0], days[1], to])
            #expect(list.map(\.totalSeconds) == [0, 1800, 1800, 0])
            #expect(list.map(\.totalPointsEarned) == [0, 5, 15, 0])
            #expect(list[0].lastUpdated == nil && list[1].lastUpdated != nil)
            #expect(String(buffer: reply.body).contains(#""lastUpdated":null"#))
            // The child reads its own; another child does not.
            #expect(try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/summaries?from=\(from)&to=\(to)", credential: child.credential).status == .ok)
            let (_, sibling) = try await server.pair(by: parent)
            #expect(try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/summaries?from=\(from)&to=\(to)", credential: sibling.credential).status == .forbidden)
        }
    }

    /// Pages by cursor: every record once, in order of end, however the pages fall.
    @Test func usageByInstantRangeComesInPages() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let records = (0..<7).map { server.usageRecord(app: "app-\($0)", startingAgo: TimeInterval(3600 * (7 - $0)), minutes: 5) }
            #expect(try await server.upload(records, by: child).status == .ok)
            let from = Instant.format(server.clock.now().addingTimeInterval(-8 * 3600)), to = Instant.format(server.clock.now())
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let uri = "/v1/devices/\(child.deviceID.lowercased)/usage?from=\(from)&to=\(to)&limit=3" + (cursor.map { "&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } ?? "")
                let page = try await server.send(.get, uri, credential: parent.credential).decode(UsageList.self)
                seen += page.records.map(\.logicalID)
                cursor = page.cursor
                pages += 1
            } while cursor != nil && pages < 10
            #expect(seen == (0..<7).map { "app-\($0)" })
            #expect(pages == 3)
            // A narrower range holds only what overlaps it.
            let narrow = try await server.send(
                .get, "/v1/devices/\(child.deviceID.lowercased)/usage?from=\(Instant.format(server.clock.now().addingTimeInterval(-2 * 3600)))&to=\(to)",
                credential: parent.credential
            ).decode(UsageList.self)
            #expect(narrow.records.map(\.logicalID) == ["app-5", "app-6"])
            #expect(narrow.cursor == nil)
        }
    }

    @Test func aReportByDayAndByWeekWithItsCSV() async throws {
        try await withTestServer { server in
            let (parent, child, days) = try await Self.childWithUsage(server)
            let base = "/v1/devices/\(child.deviceID.lowercased)/report?from=\(days[0])&to=\(days[1])"
            let daily = try await server.send(.get, base, credential: parent.credential).decode(ReportBody.self)
            #expect(daily.periods.map(\.start) == days)
            #expect(daily.periods.map(\.totalLearningSeconds) == [600, 1800])
            #expect(daily.periods.map(\.totalRewardSeconds) == [1200, 0])
            #expect(daily.totals.totalSeconds == 3600)
            #expect(daily.totals.totalPointsEarned == 20)
            #expect(daily.totals.topApps.map(\.logicalID) == ["khan", "minecraft"])
            #expect(daily.totals.topApps.map(\.seconds) == [2400, 1200])

            let weekly = try await server.send(.get, base + "&granularity=week", credential: parent.credential).decode(ReportBody.self)
            #expect(weekly.periods.map(\.totalSeconds).reduce(0, +) == 3600)
            #expect(weekly.periods.first?.start == days[0])

            let csv = try await server.send(.get, base, credential: parent.credential, headers: [("Accept", "text/csv")])
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            let lines = String(buffer: csv.body).components(separatedBy: "\r\n")
            #expect(lines.first == "period_start,period_end,logical_id,display_name,category,seconds,points,pickups")
            #expect(lines.contains("\(days[0]),\(days[0]),minecraft,Minecraft,reward,1200,0,0"))
            #expect(lines.count == 5, "a header, three period × app rows, and the last line break")
        }
    }

    /// Pickups (§9.1) from sessions and from a day's totals reach the summary, the report (JSON
    /// and CSV) and the member's view; per app, the larger of the sessions' and the total's.
    @Test func pickupsReachSummariesAndReports() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let withPickups = { (record: String, pickups: Int) in record.replacingOccurrences(of: #""earnedPoints""#, with: #""pickups":\#(pickups),"earnedPoints""#) }
            let records = [
                withPickups(server.usageRecord(app: "tiktok", category: "social_media", startingAgo: 3 * 3600, minutes: 10, points: 0), 4),
                withPickups(server.usageRecord(app: "tiktok", category: "social_media", startingAgo: 2 * 3600, minutes: 10, points: 0), 3),
                withPickups(server.usageRecord(app: "khan", startingAgo: 5 * 3600, minutes: 10, points: 0), 1),
            ]
            #expect(try await server.upload(records, by: child).status == .ok)
            let day = DailySummaryCalculator.day(of: server.clock.now(), in: .gmt)
            // The day's totals say 9 pickups of TikTok: more than its sessions' 7, so 9 stands.
            let totals = #"{"timeZone":"UTC","date":"\#(day)","apps":[{"logicalID":"tiktok","displayName":"TikTok","category":"social_media","totalSeconds":1200,"pickups":9}]}"#
            let reported = try await server.send(.post, "/v1/usage/totals", credential: child.credential, json: totals)
            #expect(reported.status == .ok, "\(String(buffer: reported.body))")

            let base = "/v1/devices/\(child.deviceID.lowercased)"
            let summary = try #require(try await server.send(.get, "\(base)/summaries?from=\(day)&to=\(day)", credential: parent.credential).decode(SummaryList.self).summaries.first)
            #expect(summary.totalPickups == 10 && summary.byApp.first { $0.logicalID == "tiktok" }?.pickups == 9)
            let report = try await server.send(.get, "\(base)/report?from=\(day)&to=\(day)", credential: parent.credential).decode(ReportBody.self)
            #expect(report.totals.totalPickups == 10 && report.periods.first?.totalPickups == 10)
            #expect(report.totals.topApps.map(\.pickups) == [9, 1])
            let csv = String(buffer: try await server.send(.get, "\(base)/report?from=\(day)&to=\(day)", credential: parent.credential, headers: [("Accept", "text/csv")]).body)
            #expect(csv.contains("\(day),\(day),tiktok,Tiktok,social_media,1200,0,9\r\n"), "\(csv)")
            let member = try await server.memberID(of: child)
            let memberReport = try await server.send(.get, "/v1/members/\(member.lowercased)/report?from=\(day)&to=\(day)", credential: parent.credential).decode(ReportBody.self)
            #expect(memberReport.totals.totalPickups == 10)
        }
    }

    @Test func csvQuotesAsRFC4180Says() {
        #expect(UsageReport.csvField("plain") == "plain")
        #expect(UsageReport.csvField("Tom, Jerry") == "\"Tom, Jerry\"")
        #expect(UsageReport.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(UsageReport.csvField("two\nlines") == "\"two\nlines\"")
    }
}

/// Bad parameters of the parent reads: 400 naming the parameter, nothing changed.
@Suite struct ParentReadBadInputTests {
    static let cases: [(String, String)] = [
        ("summaries?from=2026-11-07&to=2026-11-01", "to"),
        ("summaries?from=2026-11-31&to=2026-12-01", "from"),
        ("summaries?from=2026-11-01", "to"),
        ("summaries?from=2025-01-01&to=2026-11-01", "to"),
        ("report?from=2026-11-01&to=2026-11-07&granularity=month", "granularity"),
        ("report?from=yesterday&to=2026-11-07", "from"),
        ("usage?from=2026-11-01T00:00:00Z", "to"),
        ("usage?from=2026-11-07T00:00:00Z&to=2026-11-01T00:00:00Z", "to"),
        ("usage?from=noon&to=2026-11-01T00:00:00Z", "from"),
        ("usage?from=2026-11-01T00:00:00Z&to=2026-11-07T00:00:00Z&limit=0", "limit"),
        ("usage?from=2026-11-01T00:00:00Z&to=2026-11-07T00:00:00Z&cursor=bm90IGEgY3Vyc29y", "cursor"),
    ]

    @Test(arguments: cases)
    func isRefused(_ query: String, _ field: String) async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let before = try await server.fingerprint()
            let reply = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/\(query)", credential: parent.credential)
            #expect(reply.status == .badRequest, "\(String(buffer: reply.body))")
            #expect(reply.errorCode == "BAD_REQUEST")
            #expect(reply.error?.field == field)
            #expect(try await server.fingerprint() == before)
        }
    }
}
