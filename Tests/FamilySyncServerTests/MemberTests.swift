import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// PROTOCOL §8: a person with several devices and one view across them; tracked parent devices;
/// member zones seen by the member's devices only.
@Suite struct MemberTests {
    /// Seed 000's "iOS 2h 10m | Mac 1h 32m": one child, an iPhone and a Mac, each day in the
    /// device's own time zone, summed into the member's day.
    @Test func aChildWithTwoDevicesHasOneCombinedDay() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, phone) = try await server.pair(by: parent)
            let member = try await server.memberID(of: phone)
            let mac = try await server.pair(into: member, by: parent, platform: .macos, timeZone: "UTC")
            #expect(try await server.memberID(of: mac) == member)

            try await server.uploadSession(by: phone, app: "khan", minutes: 130, timeZone: "UTC")
            try await server.uploadSession(by: mac, app: "khan", minutes: 60, timeZone: "UTC")
            try await server.uploadSession(by: mac, app: "duolingo", minutes: 32, timeZone: "UTC")

            let day = DailySummaryCalculator.day(of: server.clock.now().addingTimeInterval(-3600), in: .gmt)
            let reply = try await server.send(.get, "/v1/members/\(member.lowercased)/summaries?from=\(day)&to=\(day)", credential: parent.credential)
            #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            let summary = try #require(try reply.decode(MemberSummaryList.self).summaries.first)
            #expect(summary.totalSeconds == (130 + 92) * 60)
            #expect(summary.byPlatform.map { "\($0.platform.rawValue) \($0.seconds)" } == ["ipados 7800", "macos 5520"])
            #expect(summary.byDevice.map(\.deviceId) == [phone.deviceID.lowercased, mac.deviceID.lowercased])
            #expect(summary.byApp.map { "\($0.logicalID) \($0.seconds)" } == ["khan 11400", "duolingo 1920"])
            #expect(summary.byCategory.map { "\($0.category) \($0.seconds)" } == ["learning 13320", "reward 0"])

            // The child's devices read their member's view; the report has the platforms too.
            let own = try await server.send(.get, "/v1/members/\(member.lowercased)/report?from=\(day)&to=\(day)", credential: mac.credential)
            #expect(own.status == .ok, "\(String(buffer: own.body))")
            let report = try own.decode(ReportBody.self)
            #expect(report.totals.byPlatform?.map(\.seconds) == [7800, 5520])
            let csv = try await server.send(.get, "/v1/members/\(member.lowercased)/report?from=\(day)&to=\(day)", credential: parent.credential, headers: [("Accept", "text/csv")])
            #expect(String(buffer: csv.body).contains("\(day),\(day),platform,macos,,,5520,,\r\n"))
        }
    }

    /// Each device's day is its own local day: a session late in the evening in Los Angeles is the
    /// next day in UTC, and the member's view keeps it on the Los Angeles date.
    @Test func eachDeviceCountsInItsOwnTimeZone() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, phone) = try await server.pair(by: parent)
            let member = try await server.memberID(of: phone)
            let tablet = try await server.pair(into: member, by: parent, platform: .ipados, timeZone: "America/Los_Angeles")
            try await server.uploadSession(by: tablet, app: "khan", minutes: 10, timeZone: "America/Los_Angeles")
            let instant = server.clock.now().addingTimeInterval(-3600 - 300)
            let local = DailySummaryCalculator.day(of: instant, in: TimeZone(identifier: "America/Los_Angeles")!)
            let reply = try await server.send(.get, "/v1/members/\(member.lowercased)/summaries?from=\(local)&to=\(local)", credential: parent.credential)
            let day = try #require(try reply.decode(MemberSummaryList.self).summaries.first)
            #expect(day.totalSeconds == 600)
            #expect(day.byDevice.first { $0.deviceId == tablet.deviceID.lowercased }?.seconds == 600)
        }
    }

    /// A member's zone is shared read-only with its devices and with nobody else in the family.
    @Test func aMemberZoneIsSeenByItsDevicesOnly() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, sibling) = try await server.pair(by: parent)
            let zone = Member.zoneName(of: try await server.memberID(of: child))
            let write = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: """
                {"operations":[{"operationType":"create","record":{"recordName":"settings","recordType":"DeviceSettings","fields":{"syncIntervalSeconds":60}}}]}
                """)
            #expect(write.status == .ok, "\(String(buffer: write.body))")
            let read = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: child.credential)
            #expect(try read.decode(ZoneChangesResponse.self).records.map(\.recordName) == ["settings"])
            let childWrite = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: child.credential, json: """
                {"operations":[{"operationType":"forceReplace","record":{"recordName":"settings","recordType":"DeviceSettings","fields":{}}}]}
                """)
            #expect(childWrite.status == .forbidden)
            let siblingRead = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: sibling.credential)
            #expect(siblingRead.status == .notFound && siblingRead.errorCode == "ZONE_NOT_FOUND")
            let siblingZones = try await server.send(.get, "/v1/zones", credential: sibling.credential).decode(ZoneList.self).zones.map(\.zoneName)
            #expect(!siblingZones.contains(zone))
            let siblingMembers = try await server.send(.get, "/v1/members", credential: sibling.credential).decode(MemberList.self).members
            #expect(siblingMembers.map(\.id) == [try await server.memberID(of: sibling)])
        }
    }

    /// Seed 003: a parent who watches their own screen time tracks their phone, which gets a zone
    /// of its own and uploads usage; untracked, it may not.
    @Test func aTrackedParentDeviceUploadsItsOwnUsage() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let before = try await server.send(.post, "/v1/usage", credential: parent.credential, json: #"{"records":[\#(server.usageRecord(startingAgo: 7200, minutes: 5))]}"#)
            #expect(before.status == .forbidden)
            let tracked = try await server.send(.patch, "/v1/devices/me", credential: parent.credential, json: #"{"tracked":true}"#)
            #expect(tracked.status == .ok, "\(String(buffer: tracked.body))")
            let device = try tracked.decode(DeviceBody.self)
            #expect(device.tracked && device.zoneName == "device-\(parent.deviceID.lowercased)")
            try await server.uploadSession(by: parent, app: "mail", minutes: 20, timeZone: "UTC")
            let member = try await server.memberID(of: parent)
            let day = DailySummaryCalculator.day(of: server.clock.now().addingTimeInterval(-3600), in: .gmt)
            let view = try await server.send(.get, "/v1/members/\(member.lowercased)/summaries?from=\(day)&to=\(day)", credential: parent.credential)
            #expect(try view.decode(MemberSummaryList.self).summaries.first?.totalSeconds == 1200)
            // A child's device is always tracked: it cannot turn that off.
            let (_, child) = try await server.pair(by: parent)
            let untrack = try await server.send(.patch, "/v1/devices/me", credential: child.credential, json: #"{"tracked":false}"#)
            #expect(untrack.status == .forbidden)
        }
    }

    @Test func aDeviceMovesToAnotherMemberOfItsRole() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let created = try await server.send(.post, "/v1/members", credential: parent.credential, json: #"{"name":"Ann","role":"child"}"#)
            #expect(created.status == .created)
            let ann = try created.decode(MemberBody.self)
            #expect(ann.zoneName == "member-\(ann.id.lowercased)" && ann.deviceIds.isEmpty)
            let moved = try await server.send(.post, "/v1/devices/\(child.deviceID.lowercased)/member", credential: parent.credential, json: #"{"memberId":"\#(ann.id.lowercased)"}"#)
            #expect(moved.status == .ok, "\(String(buffer: moved.body))")
            #expect(try moved.decode(DeviceBody.self).memberId == ann.id)
            // The moved device now sees Ann's zone, and it shows in its database changes.
            let changes = try await server.send(.get, "/v1/changes", credential: child.credential).decode(DatabaseChangesResponse.self)
            #expect(changes.zones.map(\.zoneName).contains(ann.zoneName))
        }
    }

    @Test func deletingAMemberErasesItItsDevicesAndTheirZones() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let deleted = try await server.send(.delete, "/v1/members/\(member.lowercased)", credential: parent.credential)
            #expect(deleted.status == .noContent, "\(String(buffer: deleted.body))")
            #expect(try await server.send(.get, "/v1/devices/me", credential: child.credential).status == .unauthorized)
            let zones = try await server.send(.get, "/v1/zones", credential: parent.credential).decode(ZoneList.self).zones.map(\.zoneName)
            #expect(!zones.contains(Member.zoneName(of: member)))
            let members = try await server.send(.get, "/v1/members", credential: parent.credential).decode(MemberList.self).members
            #expect(!members.map(\.id).contains(member))
            // Its device's zone goes too, and the device itself (§15.3).
            #expect(!zones.contains(Device.zoneName(forChild: child.deviceID)))
            let devices = try await server.send(.get, "/v1/devices", credential: parent.credential).decode(DeviceList.self).devices
            #expect(!devices.map(\.id).contains(child.deviceID))
        }
    }

    /// A device invited into a member and moved to another since is the other's: deleting the
    /// first member leaves it (and everything of it) where it is.
    @Test func deletingAMemberLeavesADeviceInvitedIntoItAndMovedSince() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, johnny) = try await server.pair(by: parent)
            let ann = try await server.send(.post, "/v1/members", credential: parent.credential, json: #"{"name":"Ann","role":"child"}"#).decode(MemberBody.self)
            let invitation = try await server.send(.post, "/v1/pairings", credential: parent.credential, json: #"{"role":"child","memberId":"\#(ann.id.lowercased)"}"#).decode(CreatePairingResponse.self)
            let (_, tablet) = try await server.accept(invitation)
            #expect(try await server.send(.post, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: parent.credential).status == .ok)
            let moved = try await server.send(.post, "/v1/devices/\(tablet.deviceID.lowercased)/member", credential: parent.credential, json: #"{"memberId":"\#(try await server.memberID(of: johnny).lowercased)"}"#)
            #expect(moved.status == .ok, "\(String(buffer: moved.body))")
            #expect(try await server.send(.delete, "/v1/members/\(ann.id.lowercased)", credential: parent.credential).status == .noContent)
            #expect(try await server.send(.get, "/v1/devices/me", credential: tablet.credential).status == .ok, "Johnny's tablet stays")
            let zones = try await server.send(.get, "/v1/zones", credential: parent.credential).decode(ZoneList.self).zones.map(\.zoneName)
            #expect(zones.contains(Device.zoneName(forChild: tablet.deviceID)))
        }
    }

    /// PROTOCOL §14: at most 50 members; the 51st is refused and changes nothing.
    @Test func aFamilyHasAtMostFiftyMembers() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            for index in 1..<50 {
                let reply = try await server.send(.post, "/v1/members", credential: parent.credential, json: #"{"name":"Person \#(index)","role":"child"}"#)
                #expect(reply.status == .created)
            }
            let before = try await server.fingerprint()
            let refused = try await server.send(.post, "/v1/members", credential: parent.credential, json: #"{"name":"One more","role":"child"}"#)
            #expect(refused.status == .contentTooLarge && refused.errorCode == "LIMIT_EXCEEDED")
            #expect(try await server.fingerprint() == before)
        }
    }
}
