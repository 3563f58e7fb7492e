import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird

/// `/v1/pairings…` (PROTOCOL §3).
package struct PairingController {
    let pairings: PostgresPairingStore
    let clock: any WallClock
    /// The server's base URL for QR payloads.
    let publicURL: PublicURL
    /// The server's keys a payload pins (§3.2), when the operator pins them.
    let keyPinning: KeyPinning?

    package init(pairings: PostgresPairingStore, clock: any WallClock, publicURL: PublicURL, keyPinning: KeyPinning? = nil) {
        self.pairings = pairings
        self.clock = clock
        self.publicURL = publicURL
        self.keyPinning = keyPinning
    }

    package func addOpenRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("pairings/accept", use: accept)
    }

    package func addAuthenticatedRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.post("pairings", use: create)
            .get("pairings", use: list)
            .get("pairings/:id", use: read)
            .post("pairings/:id/confirm", use: confirm)
            .post("pairings/:id/reject", use: reject)
            .delete("pairings/:id", use: revoke)
    }

    /// `POST /v1/pairings/accept`: a new device takes an invitation with its token (QR payload, or
    /// id and token) and waits for a parent's confirmation.
    @Sendable func accept(_ request: Request, context: FamilySyncRequestContext) async throws -> AcceptPairingResponse {
        let body = try await request.decode(as: AcceptPairingRequest.self, context: context)
        let registration = try DeviceRegistrationInput(body.device, field: "device")
        let (pairingID, tokenText, parentDeviceID) = try Self.invitation(body)
        // A token that does not parse cannot match: answered like a wrong one.
        guard let token = PairingToken(parsing: tokenText) else {
            throw FamilySyncError.notFound("No such pairing, or the token does not match.")
        }
        let acceptance = try await pairings.accept(
            pairingID: pairingID, token: token, parentDeviceID: parentDeviceID,
            name: registration.name, platform: registration.platform, timeZone: registration.timeZone, as: context.writer
        )
        return AcceptPairingResponse(
            pairing: PairingBody(acceptance.pairing, at: clock.now()), device: DeviceBody(acceptance.device), credential: acceptance.credential.token
        )
    }

    /// `POST /v1/pairings`: a parent's invitation, with its token and QR payload.
    @Sendable func create(_ request: Request, context: FamilySyncRequestContext) async throws -> EditedResponse<CreatePairingResponse> {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .createPairing)
        let body = try await request.decode(as: CreatePairingRequest.self, context: context)
        let (ttl, childName) = try Pairing.checkInvitation(role: body.role, childName: body.childName, memberID: body.memberId, ttlSeconds: body.ttlSeconds)
        let (pairing, token) = try await pairings.create(
            familyID: caller.familyID, createdBy: caller.deviceID, role: body.role, childName: childName, memberID: body.memberId, ttlSeconds: ttl, as: context.writer
        )
        let payload = QRPayload(serverURL: serverURL(request), pairingID: pairing.id, parentDeviceID: caller.deviceID, token: token.token, keyPins: keyPinning?.pins ?? [])
        return EditedResponse(
            status: .created, response: CreatePairingResponse(pairing: PairingBody(pairing, at: clock.now()), token: token.token, qrPayload: payload.string)
        )
    }

    /// `GET /v1/pairings[?status=]`: the family's pairings.
    @Sendable func list(_ request: Request, context: FamilySyncRequestContext) async throws -> PairingList {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .listPairings)
        let status = try request.uri.queryParameters.get("status").map { text throws(FamilySyncError) in
            guard let status = PairingStatus(rawValue: text) else {
                throw .badRequest("status must be one of \(PairingStatus.allCases.map(\.rawValue).joined(separator: ", ")).", field: "status")
            }
            return status
        }
        let now = clock.now()
        let list = try await pairings.list(familyID: caller.familyID, status: status)
        return PairingList(pairings: list.map { PairingBody($0, at: now) })
    }

    /// `GET /v1/pairings/{id}`: a parent reads any pairing of its family; another device only the
    /// one it accepted.
    @Sendable func read(_ request: Request, context: FamilySyncRequestContext) async throws -> PairingBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readPairing)
        let id = try context.pathID()
        let acceptedBy = caller.role == .parent && caller.status == .active ? nil : caller.deviceID
        guard let pairing = try await pairings.get(familyID: caller.familyID, pairingID: id, acceptedBy: acceptedBy) else {
            if acceptedBy != nil { throw FamilySyncError(.accessDenied, "A device may read only the pairing it accepted.") }
            throw FamilySyncError.notFound("No such pairing.")
        }
        return PairingBody(pairing, at: clock.now())
    }

    /// `POST /v1/pairings/{id}/confirm`.
    @Sendable func confirm(_ request: Request, context: FamilySyncRequestContext) async throws -> PairingBody {
        try await decide(.confirm, context)
    }

    /// `POST /v1/pairings/{id}/reject`.
    @Sendable func reject(_ request: Request, context: FamilySyncRequestContext) async throws -> PairingBody {
        try await decide(.reject, context)
    }

    /// `DELETE /v1/pairings/{id}`: a pending invitation withdrawn.
    @Sendable func revoke(_ request: Request, context: FamilySyncRequestContext) async throws -> PairingBody {
        try await decide(.revoke, context)
    }

    private func decide(_ decision: Pairing.Decision, _ context: FamilySyncRequestContext) async throws -> PairingBody {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, decision == .revoke ? .revokePairing : .decidePairing)
        let pairing = try await pairings.decide(decision, familyID: caller.familyID, pairingID: try context.pathID(), as: context.writer)
        return PairingBody(pairing, at: clock.now())
    }

    private func serverURL(_ request: Request) -> String {
        publicURL.of(request)
    }

    /// The pairing id, token and (from a QR payload) parent device id of an accept request.
    static func invitation(_ body: AcceptPairingRequest) throws(FamilySyncError) -> (UUID, String, UUID?) {
        switch (body.qrPayload, body.pairingId, body.token) {
        case (let payload?, nil, nil):
            let parsed = try QRPayload(parsing: payload)
            return (parsed.pairingID, parsed.token, parsed.parentDeviceID)
        case (nil, let id?, let token?):
            return (try Validation.uuid(id, field: "pairingId"), token, nil)
        default:
            throw .badRequest("Send either qrPayload, or pairingId and token.", field: body.qrPayload == nil ? "pairingId" : "qrPayload")
        }
    }
}
