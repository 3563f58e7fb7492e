import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Testing

/// A device as a test holds it: its ids and its credential.
public struct TestDevice: Sendable {
    public var familyID: UUID
    public var deviceID: UUID
    public var credential: String

    public init(familyID: UUID, deviceID: UUID, credential: String) {
        self.familyID = familyID
        self.deviceID = deviceID
        self.credential = credential
    }
}

extension TestServer {
    public func createFamily(name: String = "Mom's iPhone") async throws -> TestDevice {
        let reply = try await send(.post, "/v1/families", body: CreateFamilyRequest(device: .init(name: name, platform: .ios, timeZone: "America/Chicago")))
        #expect(reply.status == .created, "create family: \(String(buffer: reply.body))")
        let created = try reply.decode(CreateFamilyResponse.self)
        return TestDevice(familyID: created.family.id, deviceID: created.device.id, credential: created.credential)
    }

    public func createPairing(by parent: TestDevice, role: DeviceRole = .child, childName: String? = "Johnny") async throws -> CreatePairingResponse {
        let reply = try await send(.post, "/v1/pairings", credential: parent.credential, body: CreatePairingRequest(role: role, childName: role == .child ? childName : nil))
        #expect(reply.status == .created, "create pairing: \(String(buffer: reply.body))")
        return try reply.decode(CreatePairingResponse.self)
    }

    public func accept(_ invitation: CreatePairingResponse, name: String = "Johnny's iPad") async throws -> (AcceptPairingResponse, TestDevice) {
        let reply = try await send(.post, "/v1/pairings/accept", body: AcceptPairingRequest(
            qrPayload: invitation.qrPayload, device: .init(name: name, platform: .ipados, timeZone: "America/Chicago")
        ))
        #expect(reply.status == .ok, "accept: \(String(buffer: reply.body))")
        let accepted = try reply.decode(AcceptPairingResponse.self)
        return (accepted, TestDevice(familyID: accepted.device.familyId, deviceID: accepted.device.id, credential: accepted.credential))
    }

    /// Invites, accepts and (unless told not to) confirms a device.
    public func pair(by parent: TestDevice, role: DeviceRole = .child, confirm: Bool = true) async throws -> (pairingID: UUID, device: TestDevice) {
        let invitation = try await createPairing(by: parent, role: role)
        let (_, device) = try await accept(invitation)
        if confirm {
            let reply = try await send(.post, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: parent.credential)
            #expect(reply.status == .ok, "confirm: \(String(buffer: reply.body))")
        }
        return (invitation.pairing.id, device)
    }
}
