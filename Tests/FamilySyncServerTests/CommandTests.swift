import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// PROTOCOL §7.1 end to end: a parent's command, the child's fetch and result, every step visible.
@Suite struct CommandTests {
    @Test func aParentSeesEveryStepOfACommand() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let created = try await server.sendCommand(#"{"commandType":"block","payload":{"logicalIDs":["app-1"]}}"#, to: child, by: parent)
            #expect(created.status == .pending)
            #expect(created.targetDeviceId == child.deviceID.lowercased)
            #expect(created.createdBy == parent.deviceID.lowercased)
            #expect(created.payload == ["logicalIDs": .array([.string("app-1")])])
            #expect(created.expiresAt == created.createdAt.addingTimeInterval(86_400))
            // Steps not yet taken are null, not absent.
            let raw = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/commands", credential: parent.credential)
            #expect(String(buffer: raw.body).contains(#""deliveredAt":null"#))
            #expect(try await server.commands(of: child, as: parent).map(\.status) == [.pending])

            server.clock.advance(by: 5)
            let fetched = try await server.commands(of: child, as: child, status: "pending")
            #expect(fetched.map(\.commandId) == [created.commandId])
            let delivered = try #require(fetched.first?.deliveredAt)
            #expect(try await server.commands(of: child, as: parent).first?.deliveredAt == delivered)

            server.clock.advance(by: 5)
            let executed = try await server.report(created.commandId, #"{"status":"executed"}"#, by: child)
            #expect(executed.status == .ok)
            let result = try executed.decode(CommandBody.self)
            #expect(result.status == .executed)
            #expect(result.executedAt == delivered.addingTimeInterval(5))
            // The same result again changes nothing; another result, or a cancel, is a conflict.
            server.clock.advance(by: 5)
            let again = try await server.report(created.commandId, #"{"status":"executed"}"#, by: child)
            #expect(try again.decode(CommandBody.self) == result)
            #expect(try await server.report(created.commandId, #"{"status":"failed","error":"x"}"#, by: child).errorCode == "CONFLICT")
            #expect(try await server.send(.post, "/v1/commands/\(created.commandId)/cancel", credential: parent.credential).status == .conflict)
            #expect(try await server.commands(of: child, as: parent) == [result])

            // It is a ConfigurationCommand record of the child's zone, so parents get it through changes.
            let zone = Device.zoneName(forChild: child.deviceID)
            let changes = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: parent.credential).decode(ZoneChangesResponse.self)
            let record = try #require(changes.records.first { $0.recordName == "command-\(created.commandId)" })
            #expect(record.recordType == "ConfigurationCommand")
            #expect(record.fields?["status"] == .string("executed"))
        }
    }

    /// §7.1: the filter applies to the status on arrival. A child asking for its pending commands
    /// receives them (delivered by that very answer), and only what an answer hands over becomes
    /// delivered.
    @Test func aChildAskingForItsPendingCommandsReceivesThem() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let first = try await server.sendCommand(#"{"commandType":"block"}"#, to: child, by: parent)
            server.clock.advance(by: 1)
            let second = try await server.sendCommand(#"{"commandType":"request_sync"}"#, to: child, by: parent)
            let pending = try await server.commands(of: child, as: child, status: "pending")
            #expect(pending.map(\.commandId) == [first.commandId, second.commandId])
            #expect(pending.map(\.status) == [.delivered, .delivered])
            #expect(try await server.commands(of: child, as: child, status: "pending").isEmpty)

            // Asking for other commands hands this one over no more than not asking at all.
            server.clock.advance(by: 1)
            let third = try await server.sendCommand(#"{"commandType":"unblock"}"#, to: child, by: parent)
            #expect(try await server.commands(of: child, as: child, status: "executed").isEmpty)
            #expect(try await server.commands(of: child, as: parent, status: "pending").map(\.commandId) == [third.commandId])

            // open: pending or delivered, whatever the fetch makes of them.
            #expect(try await server.report(first.commandId, #"{"status":"executed"}"#, by: child).status == .ok)
            let open = try await server.commands(of: child, as: child, status: "open")
            #expect(open.map(\.commandId) == [second.commandId, third.commandId])
            #expect(open.map(\.status) == [.delivered, .delivered])
            #expect(try await server.commands(of: child, as: parent, status: "open").map(\.commandId) == [second.commandId, third.commandId])
        }
    }

    @Test func aCancelledCommandTakesNoResult() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let created = try await server.sendCommand(#"{"commandType":"unblock"}"#, to: child, by: parent)
            let cancel = try await server.send(.post, "/v1/commands/\(created.commandId)/cancel", credential: parent.credential)
            let cancelled = try cancel.decode(CommandBody.self)
            #expect(cancelled.status == .cancelled)
            #expect(cancelled.cancelledAt != nil)
            #expect(try await server.send(.post, "/v1/commands/\(created.commandId)/cancel", credential: parent.credential).decode(CommandBody.self) == cancelled)
            let result = try await server.report(created.commandId, #"{"status":"executed"}"#, by: child)
            #expect(result.status == .conflict)
            #expect(try await server.commands(of: child, as: child).map(\.status) == [.cancelled])
        }
    }

    @Test func aCommandPastItsExpiryIsExpired() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let created = try await server.sendCommand(#"{"commandType":"block","expiresInSeconds":60}"#, to: child, by: parent)
            server.clock.advance(by: 61)
            #expect(try await server.commands(of: child, as: parent, status: "expired").map(\.commandId) == [created.commandId])
            #expect(try await server.report(created.commandId, #"{"status":"executed"}"#, by: child).errorCode == "CONFLICT")
            #expect(try await server.commands(of: child, as: child, status: "pending").isEmpty)
        }
    }

    /// The seeds' sendConfigurationToChild: the configuration and the command in one transaction,
    /// each configuration replacing the record of its logicalID.
    @Test func configurationTravelsWithTheCommand() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Device.zoneName(forChild: child.deviceID)
            try await server.configure(zone, by: parent, name: "app-1")
            let before = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: child.credential).decode(ZoneChangesResponse.self)

            _ = try await server.sendCommand("""
                {"commandType":"update_config","configuration":[
                  {"logicalID":"app-1","displayName":"Khan Academy","category":"learning","pointsPerMinute":5,"isEnabled":true,"blockingEnabled":false},
                  {"logicalID":"app-2","displayName":"Minecraft","category":"reward","isEnabled":true,"blockingEnabled":true}]}
                """, to: child, by: parent)
            let after = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(before.changeToken)", credential: child.credential)
                .decode(ZoneChangesResponse.self)
            let configurations = after.records.filter { $0.recordType == "AppConfiguration" }
            #expect(configurations.count == 2)
            #expect(configurations.first { $0.fields?["logicalID"] == .string("app-1") }?.recordName == "app-1", "replaced in place")
            #expect(configurations.first { $0.fields?["logicalID"] == .string("app-1") }?.fields?["displayName"] == .string("Khan Academy"))
            #expect(configurations.first { $0.fields?["logicalID"] == .string("app-2") }?.recordName.hasPrefix("config-") == true)
            #expect(after.records.filter { $0.recordType == "ConfigurationCommand" }.count == 1)
        }
    }

    /// `request_sync` (the seeds' requestChildSync) wakes the child's held poll.
    @Test func requestSyncWakesTheChild() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let held = try await server.holdPoll(child, since: try await server.databaseToken(child))
            _ = try await server.sendCommand(#"{"commandType":"request_sync"}"#, to: child, by: parent)
            let answer = try #require(try await held.value.poll)
            #expect(answer.changed)
            #expect(answer.zones == [Device.zoneName(forChild: child.deviceID)])
        }
    }
}
