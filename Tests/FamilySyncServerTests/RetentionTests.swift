import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// A family's retention (§15.1): a parent sets days per kind within the operator's maximum; the
/// job's next run removes what is past them from every read and every change feed (a tombstone
/// the child's zone carries to its devices), and the summaries stay as long as the family keeps
/// summaries.
@Suite struct RetentionTests {
    @Test func aParentSetsItAndTheDefaultsAreTheMaximum() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let initial = try await server.send(.get, "/v1/families/me/retention", credential: parent.credential).decode(RetentionBody.self)
            #expect(initial.maximumDays == 400 && initial.familySet.isEmpty && Set(initial.days.values) == [400] && initial.days.count == RetentionKind.allCases.count)
            let set = try await server.send(.put, "/v1/families/me/retention", credential: parent.credential, json: #"{"days":{"usageSessions":30,"audit":90}}"#)
            #expect(set.status == .ok, "\(String(buffer: set.body))")
            let body = try set.decode(RetentionBody.self)
            #expect(body.days["usageSessions"] == 30 && body.days["audit"] == 90 && body.days["summaries"] == 400 && body.familySet == ["usageSessions", "audit"])
            #expect(try await server.send(.get, "/v1/families/me/retention", credential: parent.credential).decode(RetentionBody.self) == body)
            // Setting again replaces: a kind left out goes back to the maximum.
            let again = try await server.send(.put, "/v1/families/me/retention", credential: parent.credential, json: #"{"days":{"alerts":7}}"#).decode(RetentionBody.self)
            #expect(again.days["usageSessions"] == 400 && again.familySet == ["alerts"])
            let audit = try await server.send(.get, "/v1/audit", credential: parent.credential).decode(AuditPage.self)
            #expect(audit.events.prefix(2).map(\.action) == ["retention.set", "retention.set"] && audit.events.first?.actor.deviceId == parent.deviceID)
            for method in [HTTPRequest.Method.get, .put] {
                let refused = try await server.send(method, "/v1/families/me/retention", credential: child.credential, json: method == .put ? #"{"days":{}}"# : nil)
                #expect(refused.status == .forbidden)
            }
        }
    }

    @Test func usagePastTheFamilysDaysGoesFromReadsAndFeedsAndItsSummaryStays() async throws {
        try await withTestServer(isolation: .database) { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let now = server.clock.now()
            let start = Instant.format(now.addingTimeInterval(-7200)), end = Instant.format(now.addingTimeInterval(-6600))
            let upload = try await server.send(.post, "/v1/usage", credential: child.credential, json:
                #"{"records":[{"recordID":"\#(UUID().lowercased)","logicalID":"a","displayName":"A","category":"learning","sessionStart":"\#(start)","sessionEnd":"\#(end)","totalSeconds":600}]}"#)
            #expect(upload.status == .ok, "\(String(buffer: upload.body))")
            let zone = "child-\(child.deviceID.lowercased)"
            let before = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: child.credential).decode(ZoneChangesResponse.self)
            let session = try #require(before.records.first { $0.recordType == "UsageRecord" })
            let summary = try #require(before.records.first { $0.recordType == "DailySummary" })
            #expect(try await server.send(.put, "/v1/families/me/retention", credential: parent.credential, json: #"{"days":{"usageSessions":30}}"#).status == .ok)

            server.clock.advance(by: 29 * 86_400)
            try await server.expireRetention()
            let kept = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(before.changeToken)", credential: child.credential).decode(ZoneChangesResponse.self)
            #expect(kept.records.isEmpty, "not past 30 days yet")

            server.clock.advance(by: 2 * 86_400)
            #expect(try await server.expireRetention() >= 1)
            let after = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(before.changeToken)", credential: child.credential).decode(ZoneChangesResponse.self)
            #expect(after.records.map(\.recordName) == [session.recordName] && after.records.first?.deleted == true)
            let from = Instant.format(now.addingTimeInterval(-86_400)), to = Instant.format(now)
            let usage = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/usage?from=\(from)&to=\(to)", credential: parent.credential).decode(UsageList.self)
            #expect(usage.records.isEmpty)
            let whole = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: child.credential).decode(ZoneChangesResponse.self)
            #expect(whole.records.contains { $0.recordName == summary.recordName && $0.deleted != true })
            // A retention run is the family's setting carried out, not an audited change.
            let audit = try await server.send(.get, "/v1/audit", credential: parent.credential).decode(AuditPage.self)
            #expect(!audit.events.contains { $0.actor.role == "server" && $0.action == "record.deleted" })
        }
    }

    /// What the family keeps shorter than the server is refused at upload, as the server's own
    /// retention is: it would go within the hour, its day's summary recomputed without the rest.
    @Test func usageOlderThanTheFamilyKeepsIsRefusedAndChangesNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            #expect(try await server.send(.put, "/v1/families/me/retention", credential: parent.credential, json: #"{"days":{"usageSessions":30,"dailyTotals":30}}"#).status == .ok)
            let now = server.clock.now()
            func session(daysAgo: Double) -> String {
                let end = now.addingTimeInterval(-daysAgo * 86_400)
                return #"{"recordID":"\#(UUID().lowercased)","logicalID":"a","displayName":"A","category":"learning","sessionStart":"\#(Instant.format(end.addingTimeInterval(-600)))","sessionEnd":"\#(Instant.format(end))","totalSeconds":600}"#
            }
            let before = try await server.fingerprint()
            let old = try await server.send(.post, "/v1/usage", credential: child.credential, json: #"{"records":[\#(session(daysAgo: 1)),\#(session(daysAgo: 40))]}"#)
            #expect(old.status == .badRequest && old.error?.field == "records[1].sessionEnd", "\(String(buffer: old.body))")
            let oldDay = DailySummaryCalculator.day(of: now.addingTimeInterval(-40 * 86_400), in: .gmt)
            let totals = try await server.send(.post, "/v1/usage/totals", credential: child.credential, json:
                #"{"date":"\#(oldDay)","timeZone":"UTC","apps":[{"logicalID":"a","displayName":"A","category":"learning","totalSeconds":60}]}"#)
            #expect(totals.status == .badRequest && totals.error?.field == "date", "\(String(buffer: totals.body))")
            #expect(try await server.fingerprint().filter { $0.key != "devices" } == before.filter { $0.key != "devices" })
            // Within the family's days it is taken.
            #expect(try await server.send(.post, "/v1/usage", credential: child.credential, json: #"{"records":[\#(session(daysAgo: 29))]}"#).status == .ok)
        }
    }
}
