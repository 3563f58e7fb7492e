import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import Foundation
import Testing

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
    /// The child's member, and a sibling: another child member with a device of its own (§8).
    var childMemberID: UUID
    var sibling: TestDevice
    var siblingMemberID: UUID
    /// A device waiting for a parent to take the code it shows (§3.1): its code and secret.
    var signInCode: String
    var signInSecret: String

    var childZone: String { "child-\(child.deviceID.lowercased)" }

    /// Every id of family A: none may appear in an answer to another family or to nobody.
    var familyAIDs: [UUID] {
        [
            parent.familyID, parent.deviceID, child.deviceID, awaiting.deviceID, revoked.deviceID, childPairingID, awaitingPairingID, pendingPairingID,
            UUID(uuidString: commandID)!, childMemberID, sibling.deviceID, siblingMemberID,
        ]
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
        let (_, sibling) = try await server.pair(by: parent)
        let childMemberID = try #require(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).memberId)
        let siblingMemberID = try #require(try await server.send(.get, "/v1/devices/me", credential: sibling.credential).decode(DeviceBody.self).memberId)
        let otherParent = try await server.createFamily(name: "Other parent")
        let otherPending = try await server.createPairing(by: otherParent)
        let signIn = try await server.send(
            .post, "/v1/sign-ins", body: StartSignInRequest(device: .init(name: "A browser", platform: .web, timeZone: "UTC"))
        ).decode(StartSignInResponse.self)
        return FamilyFixture(
            parent: parent, child: child, childPairingID: childPairingID, awaiting: awaiting, awaitingPairingID: awaitingPairingID,
            revoked: revoked, pendingPairingID: pending.pairing.id, pendingQRPayload: pending.qrPayload, otherParent: otherParent, otherPairingID: otherPending.pairing.id,
            commandID: command.commandId, childMemberID: childMemberID, sibling: sibling, siblingMemberID: siblingMemberID,
            signInCode: signIn.signIn.code, signInSecret: signIn.secret
        )
    }
}
