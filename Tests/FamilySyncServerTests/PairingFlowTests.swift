import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// PROTOCOL §2–§3 end to end: a parent creates a family, pairs a child and a co-parent.
@Suite struct PairingFlowTests {
    @Test func aParentPairsAChildThroughTheQRCode() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let invitation = try await server.createPairing(by: parent)
            #expect(invitation.pairing.status == .pending)
            #expect(invitation.pairing.createdBy == parent.deviceID)
            #expect(invitation.pairing.expiresAt.timeIntervalSince(invitation.pairing.createdAt) == 600)
            #expect(invitation.qrPayload.hasPrefix("familysync://pair?v=1&s="))
            let payload = try QRPayload(parsing: invitation.qrPayload)
            #expect(payload.pairingID == invitation.pairing.id && payload.token == invitation.token && payload.parentDeviceID == parent.deviceID)

            // The child accepts: awaiting confirmation, and both sides see the same emoji.
            let (accepted, child) = try await server.accept(invitation)
            #expect(accepted.device.status == .awaitingConfirmation)
            #expect(accepted.device.childName == "Johnny")
            #expect(accepted.pairing.status == .accepted)
            let emoji = try #require(accepted.pairing.verificationEmoji)
            #expect(emoji == EmojiCode.derive(token: invitation.token, pairingID: invitation.pairing.id, parentDeviceID: parent.deviceID, childDeviceID: child.deviceID))
            let parentView = try await server.send(.get, "/v1/pairings/\(invitation.pairing.id.lowercased)", credential: parent.credential).decode(PairingBody.self)
            #expect(parentView.verificationEmoji == emoji)
            #expect(parentView.deviceId == child.deviceID)

            // Until confirmed the child may read itself and its pairing only.
            #expect(try await server.send(.get, "/v1/devices/me", credential: child.credential).status == .ok)
            #expect(try await server.send(.get, "/v1/pairings/\(invitation.pairing.id.lowercased)", credential: child.credential).status == .ok)
            #expect(try await server.send(.get, "/v1/devices", credential: child.credential).status == .forbidden)

            // The parent confirms: the child is active and has its zone.
            let confirmed = try await server.send(.post, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: parent.credential)
            #expect(confirmed.status == .ok)
            #expect(try confirmed.decode(PairingBody.self).status == .confirmed)
            let me = try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self)
            #expect(me.status == .active)
            #expect(me.zoneName == "child-\(child.deviceID.lowercased)")
            let zones = try await server.postgres.query(
                "SELECT zone_name, child_device_id FROM zones WHERE family_id = \(parent.familyID) AND member_id IS NULL ORDER BY zone_name", logger: testLogger
            ).decode((String, UUID?).self).reduce(into: [String]()) { $0.append("\($1.0) \($1.1?.lowercased ?? "-")") }
            #expect(zones == ["child-\(child.deviceID.lowercased) \(child.deviceID.lowercased)", "family -"])
            let children = try await server.send(.get, "/v1/devices", credential: child.credential).decode(DeviceList.self)
            #expect(children.devices.map(\.id) == [child.deviceID])
            let everyone = try await server.send(.get, "/v1/devices", credential: parent.credential).decode(DeviceList.self)
            #expect(Set(everyone.devices.map(\.id)) == [parent.deviceID, child.deviceID])
        }
    }

    @Test func aCoParentJoinsByIdAndToken() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let invitation = try await server.createPairing(by: parent, role: .parent)
            let reply = try await server.send(.post, "/v1/pairings/accept", body: AcceptPairingRequest(
                pairingId: invitation.pairing.id.uuidString.uppercased(), token: invitation.token,
                device: .init(name: "Dad's Mac", platform: .macos, timeZone: "Europe/Berlin")
            ))
            #expect(reply.status == .ok)
            let accepted = try reply.decode(AcceptPairingResponse.self)
            #expect(accepted.device.role == .parent && accepted.device.zoneName == nil)
            #expect(try await server.send(.post, "/v1/pairings", credential: accepted.credential, body: CreatePairingRequest(role: .child)).status == .forbidden)
            #expect(try await server.send(.post, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: parent.credential).status == .ok)
            // Now a parent like the first: it may invite.
            #expect(try await server.send(.post, "/v1/pairings", credential: accepted.credential, body: CreatePairingRequest(role: .child)).status == .created)
        }
    }

    @Test func rejectingRevokesTheDevice() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let invitation = try await server.createPairing(by: parent)
            let (_, child) = try await server.accept(invitation)
            let rejected = try await server.send(.post, "/v1/pairings/\(invitation.pairing.id.lowercased)/reject", credential: parent.credential)
            #expect(try rejected.decode(PairingBody.self).status == .rejected)
            #expect(try await server.send(.get, "/v1/devices/me", credential: child.credential).status == .unauthorized)
            // Rejected, then accepted again: gone.
            let again = try await server.send(.post, "/v1/pairings/accept", body: AcceptPairingRequest(qrPayload: invitation.qrPayload, device: .init(name: "x", platform: .ios, timeZone: "UTC")))
            #expect(again.status == .gone && again.errorCode == "PAIRING_EXPIRED")
        }
    }

    @Test func revokingRotatingAndDeletingTheFamily() async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            // Rotation: the old credential stops at once, the new one works.
            let rotated = try await server.send(.post, "/v1/devices/me/credential", credential: fixture.child.credential).decode(CredentialResponse.self)
            #expect(try await server.send(.get, "/v1/devices/me", credential: fixture.child.credential).status == .unauthorized)
            #expect(try await server.send(.get, "/v1/devices/me", credential: rotated.credential).status == .ok)

            // Purge: the child's zone goes with its revocation.
            let purge = try await server.send(.delete, "/v1/devices/\(fixture.child.deviceID.lowercased)?purge=true", credential: fixture.parent.credential)
            #expect(purge.status == .noContent)
            #expect(try await server.send(.get, "/v1/devices/me", credential: rotated.credential).status == .unauthorized)
            let zones = try await server.postgres.query("SELECT count(*)::int FROM zones WHERE family_id = \(fixture.parent.familyID) AND child_device_id = \(fixture.child.deviceID) AND deleted_at IS NULL", logger: testLogger).decode(Int.self).first { _ in true }
            #expect(zones == 0)

            // The last parent cannot be revoked; the family can be deleted, and then nothing of it remains.
            let last = try await server.send(.delete, "/v1/devices/\(fixture.parent.deviceID.lowercased)", credential: fixture.parent.credential)
            #expect(last.status == .conflict)
            #expect(try await server.send(.delete, "/v1/families/me", credential: fixture.parent.credential).status == .noContent)
            #expect(try await server.send(.get, "/v1/devices/me", credential: fixture.parent.credential).status == .unauthorized)
            for table in ["families", "devices", "pairings", "zones"] {
                let count = try await server.postgres.query(PostgresQuery(unsafeSQL: "SELECT count(*)::int FROM \(table) WHERE family_id = '\(fixture.parent.familyID.lowercased)'"), logger: testLogger).decode(Int.self).first { _ in true }
                #expect(count == 0, "\(table) still holds rows of the deleted family")
            }
            // The other family is untouched.
            #expect(try await server.send(.get, "/v1/devices/me", credential: fixture.otherParent.credential).status == .ok)
        }
    }

    @Test func lastSeenIsWrittenAtMostOnceAMinute() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let created = try await server.send(.get, "/v1/devices/me", credential: parent.credential).decode(DeviceBody.self)
            server.clock.advance(by: 30)
            let soon = try await server.send(.get, "/v1/devices/me", credential: parent.credential).decode(DeviceBody.self)
            #expect(soon.lastSeenAt == created.lastSeenAt)
            server.clock.advance(by: 31)
            _ = try await server.send(.get, "/v1/devices/me", credential: parent.credential)
            let later = try await server.send(.get, "/v1/devices/me", credential: parent.credential).decode(DeviceBody.self)
            #expect(later.lastSeenAt == server.clock.now())
        }
    }
}
