import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Testing

/// A device as a test holds it: its ids and its credential.
struct TestDevice: Sendable {
    var familyID: UUID
    var deviceID: UUID
    var credential: String
}

extension TestServer {
    func createFamily(name: String = "Mom's iPhone") async throws -> TestDevice {
        let reply = try await send(.post, "/v1/families", body: CreateFamilyRequest(device: .init(name: name, platform: .ios, timeZone: "America/Chicago")))
        #expect(reply.status == .created, "create family: \(String(buffer: reply.body))")
        let created = try reply.decode(CreateFamilyResponse.self)
        return TestDevice(familyID: created.family.id, deviceID: created.device.id, credential: created.credential)
    }

    func createPairing(by parent: TestDevice, role: DeviceRole = .child, childName: String? = "Johnny") async throws -> CreatePairingResponse {
        let reply = try await send(.post, "/v1/pairings", credential: parent.credential, body: CreatePairingRequest(role: role, childName: role == .child ? childName : nil))
        #expect(reply.status == .created, "create pairing: \(String(buffer: reply.body))")
        return try reply.decode(CreatePairingResponse.self)
    }

    func accept(_ invitation: CreatePairingResponse, name: String = "Johnny's iPad") async throws -> (AcceptPairingResponse, TestDevice) {
        let reply = try await send(.post, "/v1/pairings/accept", body: AcceptPairingRequest(
            qrPayload: invitation.qrPayload, device: .init(name: name, platform: .ipados, timeZone: "America/Chicago")
        ))
        #expect(reply.status == .ok, "accept: \(String(buffer: reply.body))")
        let accepted = try reply.decode(AcceptPairingResponse.self)
        return (accepted, TestDevice(familyID: accepted.device.familyId, deviceID: accepted.device.id, credential: accepted.credential))
    }

    /// Invites, accepts and (unless told not to) confirms a device.
    func pair(by parent: TestDevice, role: DeviceRole = .child, confirm: Bool = true) async throws -> (pairingID: UUID, device: TestDevice) {
        let invitation = try await createPairing(by: parent, role: role)
        let (_, device) = try await accept(invitation)
        if confirm {
            let reply = try await send(.post, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: parent.credential)
            #expect(reply.status == .ok, "confirm: \(String(buffer: reply.body))")
        }
        return (invitation.pairing.id, device)
    }
}

/// Family A (a parent, an active child, a child awaiting confirmation, a revoked child and a
/// pending invitation) and family B (a parent): the callers of the access matrix.
struct FamilyFixture: Sendable {
    var parent: TestDevice
    var child: TestDevice
    var childPairingID: UUID
    var awaiting: TestDevice
    var awaitingPairingID: UUID
    var revoked: TestDevice
    var pendingPairingID: UUID
    var pendingQRPayload: String
    var otherParent: TestDevice
    var otherPairingID: UUID
    /// A pending command from the parent to the child.
    var commandID: String

    var childZone: String { "child-\(child.deviceID.lowercased)" }

    /// Every id of family A: none may appear in an answer to another family or to nobody.
    var familyAIDs: [UUID] {
        [parent.familyID, parent.deviceID, child.deviceID, awaiting.deviceID, revoked.deviceID, childPairingID, awaitingPairingID, pendingPairingID, UUID(uuidString: commandID)!]
    }

    static func make(_ server: TestServer) async throws -> FamilyFixture {
        let parent = try await server.createFamily()
        let (childPairingID, child) = try await server.pair(by: parent)
        let (awaitingPairingID, awaiting) = try await server.pair(by: parent, confirm: false)
        let (_, revoked) = try await server.pair(by: parent)
        let revoke = try await server.send(.delete, "/v1/devices/\(revoked.deviceID.lowercased)", credential: parent.credential)
        #expect(revoke.status == .noContent)
        let pending = try await server.createPairing(by: parent)
        let command = try await server.sendCommand(#"{"commandType":"block"}"#, to: child, by: parent)
        let otherParent = try await server.createFamily(name: "Other parent")
        let otherPending = try await server.createPairing(by: otherParent)
        return FamilyFixture(
            parent: parent, child: child, childPairingID: childPairingID, awaiting: awaiting, awaitingPairingID: awaitingPairingID,
            revoked: revoked, pendingPairingID: pending.pairing.id, pendingQRPayload: pending.qrPayload, otherParent: otherParent, otherPairingID: otherPending.pairing.id,
            commandID: command.commandId
        )
    }
}
