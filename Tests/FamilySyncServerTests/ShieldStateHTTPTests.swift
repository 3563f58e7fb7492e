import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// `GET /v1/devices/{id}/shield-state` (§11) over HTTP: the member's schedules in the device's
/// time zone, and what configuration and executed commands block.
@Suite struct ShieldStateHTTPTests {
    static func shieldState(_ server: TestServer, of child: TestDevice, as caller: TestDevice, at: String? = nil) async throws -> ShieldStateBody {
        try await server.shieldState(of: child, as: caller, at: at)
    }

    /// The barebones seed's bedtime for a child in Berlin, on the night the clocks go back.
    @Test func bedtimeInBerlinOnTheNightClocksGoBack() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            #expect(try await server.send(.patch, "/v1/devices/me", credential: child.credential, json: #"{"timeZone":"Europe/Berlin"}"#).status == .ok)
            let zone = Member.zoneName(of: try await server.memberID(of: child))
            let written = try await server.send(
                .post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: BudgetRecordTests.write("Schedule", "schedule-bedtime", ScheduleRecordTests.schedule)
            )
            #expect(written.status == .ok, "\(String(buffer: written.body))")
            // 23:30 CEST on Saturday 2026-10-24.
            let night = try await Self.shieldState(server, of: child, as: parent, at: "2026-10-24T21:30:00Z")
            #expect(night.shielded.applications == ["tiktok", "youtube"] && night.shielded.categories == ["gaming"])
            #expect(night.activeSchedules.map(\.until) == [Instant.parse("2026-10-25T06:00:00Z")!], "07:00 CET")
            #expect(night.nextChangeAt == Instant.parse("2026-10-25T06:00:00Z")!)
            // The child's device reads its own; at 12:00 nothing is shielded.
            let noon = try await Self.shieldState(server, of: child, as: child, at: "2026-10-25T11:00:00Z")
            #expect(noon.activeSchedules.isEmpty && noon.shielded.applications.isEmpty && noon.nextChangeAt == Instant.parse("2026-10-25T20:00:00Z")!)
            // A bad instant.
            let bad = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/shield-state?at=tonight", credential: parent.credential)
            #expect(bad.status == .badRequest && bad.error?.field == "at")
        }
    }

    /// Configuration blocks an app; executed commands block and unblock apps, or the whole device.
    @Test func configurationAndExecutedCommandsBlock() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let config = #"{"operations":[{"operationType":"create","record":{"recordName":"app-game","recordType":"AppConfiguration","fields":{"logicalID":"game","displayName":"Game","category":"reward","isEnabled":true,"blockingEnabled":true}}}]}"#
            #expect(try await server.send(.post, "/v1/zones/\(Device.zoneName(forChild: child.deviceID))/records/modify", credential: parent.credential, json: config).status == .ok)
            #expect(try await Self.shieldState(server, of: child, as: parent).blockedApps == ["game"])

            func run(_ json: String) async throws {
                let command = try await server.sendCommand(json, to: child, by: parent)
                server.clock.advance(by: 1)
                let result = try await server.send(.post, "/v1/commands/\(command.commandId)/result", credential: child.credential, json: #"{"status":"executed"}"#)
                #expect(result.status == .ok, "\(String(buffer: result.body))")
                server.clock.advance(by: 1)
            }
            try await run(#"{"commandType":"block","payload":{"logicalIDs":["video"]}}"#)
            #expect(try await Self.shieldState(server, of: child, as: parent).blockedApps == ["game", "video"])
            try await run(#"{"commandType":"unblock","payload":{"logicalIDs":["game"]}}"#)
            #expect(try await Self.shieldState(server, of: child, as: parent).blockedApps == ["video"])
            // A command sent but not carried out changes nothing.
            _ = try await server.sendCommand(#"{"commandType":"block","payload":{"logicalIDs":["chat"]}}"#, to: child, by: parent)
            try await run(#"{"commandType":"block"}"#)
            let blocked = try await Self.shieldState(server, of: child, as: parent)
            #expect(blocked.deviceBlocked && blocked.blockedApps == ["video"])
            try await run(#"{"commandType":"unblock"}"#)
            let open = try await Self.shieldState(server, of: child, as: parent)
            #expect(!open.deviceBlocked && open.blockedApps == ["game"], "the configuration stands again")
        }
    }
}
