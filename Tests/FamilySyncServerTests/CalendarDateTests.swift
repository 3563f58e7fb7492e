import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// §1's one calendar over HTTP: every `YYYY-MM-DD` parameter takes each day of the proleptic
/// Gregorian calendar from 0001-01-01 to 9999-12-31, before 1582 too, and refuses anything else
/// with a reason that says so; the fleet report takes each ISO week whose seven days are such days.
@Suite struct CalendarDateTests {
    @Test func everyDateParameterTakesEveryDayFromYear1() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try #require(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).memberId).lowercased
            let device = child.deviceID.lowercased
            var wrong: [String] = []
            func check(_ uri: String, _ credential: String, _ status: HTTPResponse.Status = .ok, field: String? = nil, reason: String? = nil) async throws {
                let reply = try await server.send(.get, uri, credential: credential)
                if reply.status != status || (field != nil && reply.error?.field != field) || (reason != nil && reply.error?.reason != reason) {
                    wrong.append("\(uri): \(reply.status.code) \(String(buffer: reply.body).prefix(200))")
                }
            }
            for (from, to) in [("1582-10-14", "1582-10-14"), ("1582-10-04", "1582-10-15"), ("0001-01-01", "0001-01-07"), ("9999-12-31", "9999-12-31")] {
                for path in ["/v1/devices/\(device)/summaries", "/v1/devices/\(device)/report", "/v1/members/\(member)/summaries", "/v1/members/\(member)/report",
                             "/v1/members/\(member)/alerts", "/v1/audit/reads"] {
                    try await check("\(path)?from=\(from)&to=\(to)", parent.credential)
                }
            }
            for date in ["1582-10-14", "0001-01-01", "0004-02-29", "9999-12-31"] {
                try await check("/v1/members/\(member)/budget-status?date=\(date)", parent.credential)
                try await check("/v1/devices/\(device)/health?date=\(date)", parent.credential)
            }
            for week in ["0001-W01", "1582-W41", "9999-W51"] {
                try await check("/v1/fleet/tracking-report?week=\(week)", TestServer.operatorToken)
            }
            // Outside it: days the calendar has not, year 0 (PostgreSQL's `date` has none), weeks past it.
            let notADate = "is a date, YYYY-MM-DD, from 0001-01-01 to 9999-12-31."
            try await check("/v1/devices/\(device)/summaries?from=0001-02-29&to=0001-03-01", parent.credential, .badRequest, field: "from", reason: "from " + notADate)
            try await check("/v1/members/\(member)/summaries?from=0001-01-01&to=0000-12-31", parent.credential, .badRequest, field: "to", reason: "to " + notADate)
            try await check("/v1/audit/reads?from=0000-01-01&to=0001-01-01", parent.credential, .badRequest, field: "from", reason: "from " + notADate)
            try await check("/v1/members/\(member)/budget-status?date=1582-02-29", parent.credential, .badRequest, field: "date", reason: "date " + notADate)
            try await check("/v1/devices/\(device)/health?date=0000-06-15", parent.credential, .badRequest, field: "date", reason: "date " + notADate)
            let notAWeek = "week is an ISO week, YYYY-Www (2026-W48), one the year has, from 0001-W01 to 9999-W51."
            for week in ["9999-W52", "0000-W01"] {
                try await check("/v1/fleet/tracking-report?week=\(week)", TestServer.operatorToken, .badRequest, field: "week", reason: notAWeek)
            }
            #expect(wrong.isEmpty, "\(wrong.joined(separator: "\n"))")
        }
    }
}
