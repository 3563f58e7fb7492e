import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// The SDK's calls of §11 against a live server: a bedtime schedule and its shield state, the
/// child's own app list with a parent's tie, and the parent PIN checked online and offline.
@Suite struct ShieldSDKTests {
    @Test func schedulesTheChildsAppListAndThePINThroughTheSDK() async throws {
        try await withTestServer { server in
            let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!)
            let family = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: family.credential)
            let invitation = try await parent.createPairing(CreatePairingRequest(role: .child, childName: "Johnny"))
            let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Johnny's iPad", platform: .ipados, timeZone: "Europe/Berlin"))
            _ = try await parent.confirmPairing(invitation.pairing.id)
            let child = anonymous.authenticated(as: accepted.credential)
            let me = try await child.me()
            let johnny = try #require(me.memberId), zone = try #require(me.zoneName)

            // Bedtime, 21:00–07:00: at 23:30 Berlin time the apps are shielded until 07:00.
            let bedtime: [String: JSONValue] = [
                "scheduleID": .string("bedtime"), "name": .string("Bedtime"), "enabled": .bool(true), "mode": .string("shield"),
                "intervalStart": .object(["hour": .number(21), "minute": .number(0)]), "intervalEnd": .object(["hour": .number(7), "minute": .number(0)]),
                "applications": .array([.string("tiktok")]),
            ]
            _ = try await parent.setSchedule(of: johnny, bedtime)
            #expect(try await child.schedules(of: johnny).map(\.scheduleID) == ["bedtime"])
            let night = try await child.shieldState(of: me.id, at: try #require(Instant.parse("2026-11-18T22:30:00Z")))
            #expect(night.shielded.applications == ["tiktok"] && night.activeSchedules.first?.until == Instant.parse("2026-11-19T06:00:00Z"))
            try await parent.deleteSchedule("bedtime", of: johnny)
            #expect(try await child.schedules(of: johnny).isEmpty)

            // The child publishes an app it picked; a parent's write at the same instant wins the tie.
            let instant = try #require(Instant.parse("2026-11-18T11:00:00Z"))
            let app: [String: JSONValue] = [
                "logicalID": .string("token-1"), "displayName": .string("Minecraft"), "category": .string("reward"), "isEnabled": .bool(true), "blockingEnabled": .bool(false),
            ]
            guard case .saved(let created) = try await child.saveAppConfiguration(app, named: "picked-1", in: zone, at: instant.addingTimeInterval(-60)) else {
                Issue.record("the child's create was refused")
                return
            }
            var blocked = app
            blocked["blockingEnabled"] = .bool(true)
            let parentWrite = try await parent.save([RecordOperation(operationType: .replace, record: RecordInput(
                recordName: "picked-1", recordType: "AppConfiguration", fields: blocked, recordChangeTag: created.recordChangeTag, clientModifiedAt: instant
            ))], in: zone)
            guard case .saved = parentWrite.first else { Issue.record("the parent's write was refused: \(parentWrite)"); return }
            let tie = try await child.saveAppConfiguration(app, named: "picked-1", changeTag: created.recordChangeTag, in: zone, at: instant)
            guard case .conflict(let server, _) = tie else { Issue.record("expected a conflict, got \(tie)"); return }
            #expect(server.fields?["blockingEnabled"] == .bool(true))

            // The PIN: set by the parent, checked online only; the member's record says it is set.
            #expect(try await !child.hasParentPIN(johnny))
            try await parent.setParentPIN("4821", of: johnny)
            #expect(try await child.hasParentPIN(johnny))
            #expect(try await child.verifyParentPIN("4821", of: johnny))
            #expect(try await !child.verifyParentPIN("1284", of: johnny))
            await #expect(throws: FamilySyncError.self) { try await parent.setParentPIN("123", of: johnny) }
        }
    }
}
