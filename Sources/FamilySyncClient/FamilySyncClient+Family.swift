import FamilySyncCore
import FamilySyncProtocol
import Foundation

// The calls of a family, its devices and members: §2, §3, §8, §11 and §13. Ids travel lowercased.

extension FamilySyncClient {
    // MARK: Families and devices (§2)

    /// `POST /v1/families`: a new family and its first parent device, whose credential is in the answer.
    public func createFamily(_ device: DeviceRegistration) async throws(FamilySyncError) -> CreateFamilyResponse {
        try await send(.POST, "/v1/families", body: CreateFamilyRequest(device: device), as: CreateFamilyResponse.self)
    }

    /// `DELETE /v1/families/me`: the family and everything of it.
    public func deleteFamily() async throws(FamilySyncError) {
        _ = try await send(.DELETE, "/v1/families/me", as: EmptyResponse.self)
    }

    public func devices() async throws(FamilySyncError) -> [DeviceBody] {
        try await send(.GET, "/v1/devices", as: DeviceList.self).devices
    }

    public func me() async throws(FamilySyncError) -> DeviceBody {
        try await send(.GET, "/v1/devices/me", as: DeviceBody.self)
    }

    /// `PATCH /v1/devices/{id}` (nil: the caller's own device).
    public func updateDevice(_ id: UUID? = nil, _ changes: UpdateDeviceRequest) async throws(FamilySyncError) -> DeviceBody {
        try await send(.PATCH, "/v1/devices/\(id?.lowercased ?? "me")", body: changes, as: DeviceBody.self)
    }

    /// `DELETE /v1/devices/{id}`: revoked at once; with `purge`, its zone and data go too.
    public func revokeDevice(_ id: UUID, purge: Bool = false) async throws(FamilySyncError) {
        _ = try await send(.DELETE, "/v1/devices/\(id.lowercased)", query: [("purge", purge ? "true" : nil)], as: EmptyResponse.self)
    }

    /// `POST /v1/devices/me/credential`: a new credential; the old one stops working.
    public func rotateCredential() async throws(FamilySyncError) -> String {
        try await send(.POST, "/v1/devices/me/credential", body: NoBody(), as: CredentialResponse.self).credential
    }

    // MARK: Pairing (§3)

    public func createPairing(_ request: CreatePairingRequest) async throws(FamilySyncError) -> CreatePairingResponse {
        try await send(.POST, "/v1/pairings", body: request, as: CreatePairingResponse.self)
    }

    public func pairings(status: PairingStatus? = nil) async throws(FamilySyncError) -> [PairingBody] {
        try await send(.GET, "/v1/pairings", query: [("status", status?.rawValue)], as: PairingList.self).pairings
    }

    public func pairing(_ id: UUID) async throws(FamilySyncError) -> PairingBody {
        try await send(.GET, "/v1/pairings/\(id.lowercased)", as: PairingBody.self)
    }

    /// `POST /v1/pairings/accept` with the QR payload; needs no credential.
    public func acceptPairing(qrPayload: String, device: DeviceRegistration) async throws(FamilySyncError) -> AcceptPairingResponse {
        try await send(.POST, "/v1/pairings/accept", body: AcceptPairingRequest(qrPayload: qrPayload, device: device), as: AcceptPairingResponse.self)
    }

    /// `POST /v1/pairings/accept` with the pairing's id and token typed in rather than scanned.
    public func acceptPairing(id: UUID, token: String, device: DeviceRegistration) async throws(FamilySyncError) -> AcceptPairingResponse {
        try await send(.POST, "/v1/pairings/accept", body: AcceptPairingRequest(pairingId: id.lowercased, token: token, device: device), as: AcceptPairingResponse.self)
    }

    public func confirmPairing(_ id: UUID) async throws(FamilySyncError) -> PairingBody {
        try await send(.POST, "/v1/pairings/\(id.lowercased)/confirm", body: NoBody(), as: PairingBody.self)
    }

    public func rejectPairing(_ id: UUID) async throws(FamilySyncError) -> PairingBody {
        try await send(.POST, "/v1/pairings/\(id.lowercased)/reject", body: NoBody(), as: PairingBody.self)
    }

    public func revokePairing(_ id: UUID) async throws(FamilySyncError) -> PairingBody {
        try await send(.DELETE, "/v1/pairings/\(id.lowercased)", as: PairingBody.self)
    }

    // MARK: Signing in by a shown code (§3.1)

    /// `POST /v1/sign-ins`: a code for this device to show (and its QR payload), and the secret
    /// to claim with; needs no credential. Keep the secret to this device.
    public func startSignIn(device: DeviceRegistration) async throws(FamilySyncError) -> StartSignInResponse {
        try await send(.POST, "/v1/sign-ins", body: StartSignInRequest(device: device), as: StartSignInResponse.self)
    }

    /// `POST /v1/sign-ins/claim`: `signIn.status == .waiting` until a parent takes the code; then,
    /// once, the pairing, the device and its `credential`. Not sent again by the SDK after a lost
    /// connection: a second claim is `PAIRING_EXPIRED`, so start again if that happens.
    public func claimSignIn(secret: String) async throws(FamilySyncError) -> ClaimSignInResponse {
        try await send(.POST, "/v1/sign-ins/claim", body: ClaimSignInRequest(secret: secret), as: ClaimSignInResponse.self)
    }

    /// `POST /v1/pairings/sign-in` (a parent): takes the code a signing-in device shows, typed
    /// (`code`) or read from its QR code (`qrPayload`). The answer's emoji are those the device
    /// will show; confirm with `confirmPairing` once they match.
    public func takeSignIn(code: String? = nil, qrPayload: String? = nil) async throws(FamilySyncError) -> PairingBody {
        try await send(.POST, "/v1/pairings/sign-in", body: TakeSignInRequest(code: code, qrPayload: qrPayload), as: PairingBody.self)
    }

    // MARK: Members (§8)

    /// `GET /v1/members`: a parent sees every member; another device its own.
    public func members() async throws(FamilySyncError) -> [MemberBody] {
        try await send(.GET, "/v1/members", as: MemberList.self).members
    }

    public func createMember(name: String, role: DeviceRole) async throws(FamilySyncError) -> MemberBody {
        try await send(.POST, "/v1/members", body: CreateMemberRequest(name: name, role: role), as: MemberBody.self)
    }

    public func renameMember(_ id: UUID, to name: String) async throws(FamilySyncError) -> MemberBody {
        try await send(.PATCH, "/v1/members/\(id.lowercased)", body: UpdateMemberRequest(name: name), as: MemberBody.self)
    }

    /// `DELETE /v1/members/{id}`: its devices are revoked, its zone deleted.
    public func deleteMember(_ id: UUID) async throws(FamilySyncError) {
        _ = try await send(.DELETE, "/v1/members/\(id.lowercased)", as: EmptyResponse.self)
    }

    /// `POST /v1/devices/{id}/member`: the device now belongs to another member of its role.
    public func moveDevice(_ device: UUID, to member: UUID) async throws(FamilySyncError) -> DeviceBody {
        try await send(.POST, "/v1/devices/\(device.lowercased)/member", body: MoveDeviceRequest(memberId: member), as: DeviceBody.self)
    }

    /// `PATCH /v1/devices/me {"tracked": …}`: a parent's own device records its usage, or stops.
    public func setTracked(_ tracked: Bool) async throws(FamilySyncError) -> DeviceBody {
        try await updateDevice(nil, UpdateDeviceRequest(tracked: tracked))
    }

    /// `GET /v1/members/{id}/summaries`: the member's days across their devices.
    public func memberSummaries(of member: UUID, from: String, to: String) async throws(FamilySyncError) -> [MemberDayBody] {
        try await send(.GET, "/v1/members/\(member.lowercased)/summaries", query: [("from", from), ("to", to)], as: MemberSummaryList.self).summaries
    }

    public func memberReport(of member: UUID, from: String, to: String, granularity: UsageReport.Granularity = .day) async throws(FamilySyncError) -> ReportBody {
        try await send(.GET, "/v1/members/\(member.lowercased)/report", query: [("from", from), ("to", to), ("granularity", granularity.rawValue)], as: ReportBody.self)
    }

    /// The member's report as RFC 4180 CSV (rows by platform, then by app).
    public func memberReportCSV(of member: UUID, from: String, to: String, granularity: UsageReport.Granularity = .day) async throws(FamilySyncError) -> String {
        try await send(
            .GET, "/v1/members/\(member.lowercased)/report", query: [("from", from), ("to", to), ("granularity", granularity.rawValue)],
            body: Optional<NoBody>.none, accept: "text/csv", as: String.self
        )
    }

    // MARK: Getting a family back (§13)

    /// `POST /v1/families/recover` with the recovery code; needs no credential. The answer holds
    /// the new device's credential and the family's new code (the old one stops working).
    public func recoverFamily(recoveryCode: String, device: DeviceRegistration) async throws(FamilySyncError) -> CreateFamilyResponse {
        try await send(.POST, "/v1/families/recover", body: RecoverFamilyRequest(recoveryCode: recoveryCode, device: device), as: CreateFamilyResponse.self)
    }

    /// `POST /v1/families/recover` with a Sign in with Apple identity token and the raw nonce the
    /// app put (hashed) into its authorization request.
    public func recoverFamily(appleIdentityToken: String, nonce: String, device: DeviceRegistration) async throws(FamilySyncError) -> CreateFamilyResponse {
        try await send(
            .POST, "/v1/families/recover", body: RecoverFamilyRequest(appleIdentityToken: appleIdentityToken, nonce: nonce, device: device),
            as: CreateFamilyResponse.self
        )
    }

    /// `POST /v1/families/me/recovery-code`: a new code; the old one stops working.
    public func issueRecoveryCode() async throws(FamilySyncError) -> String {
        try await send(.POST, "/v1/families/me/recovery-code", body: NoBody(), as: RecoveryCodeResponse.self).recoveryCode
    }

    /// `POST /v1/account/apple`: links the Apple account to this device's member.
    public func linkAppleAccount(identityToken: String, nonce: String) async throws(FamilySyncError) {
        _ = try await send(.POST, "/v1/account/apple", body: LinkAppleAccountRequest(identityToken: identityToken, nonce: nonce), as: EmptyResponse.self)
    }

    // MARK: The parent PIN (§11)

    /// A parent sets or changes a member's PIN (4–8 digits). The server keeps PBKDF2 of it and
    /// publishes that as the member's `parent-pin` record; a new PIN ends any lockout.
    public func setParentPIN(_ pin: String, of member: UUID) async throws(FamilySyncError) {
        try ParentPIN.validate(pin, field: "pin")
        _ = try await send(.PUT, "/v1/members/\(member.lowercased)/pin", body: SetParentPINRequest(pin: pin), as: EmptyResponse.self)
    }

    /// `DELETE /v1/members/{id}/pin` (parents): the member's PIN is cleared (`NOT_FOUND` while none is set).
    public func clearParentPIN(of member: UUID) async throws(FamilySyncError) {
        _ = try await send(.DELETE, "/v1/members/\(member.lowercased)/pin", as: EmptyResponse.self)
    }

    /// One of the member's devices checks a PIN online. Five wrong within 15 minutes are followed
    /// by `THROTTLED` (with `retryAfter`) for 15 minutes; `NOT_FOUND` while no PIN is set.
    public func verifyParentPIN(_ pin: String, of member: UUID) async throws(FamilySyncError) -> Bool {
        try ParentPIN.validate(pin, field: "pin")
        return try await send(.POST, "/v1/members/\(member.lowercased)/pin/verify", body: VerifyParentPINRequest(pin: pin), as: VerifyParentPINResponse.self).valid
    }

    /// Whether the member has a PIN: its `parent-pin` record says so, and holds nothing to check
    /// a PIN against (PROTOCOL §11). A PIN is checked online only (`verifyParentPIN`); offline,
    /// parent mode stays closed. A device that syncs its member's zone has the same record from its
    /// changes (`ParentPIN.isSet(_:)` on its fields).
    public func hasParentPIN(_ member: UUID) async throws(FamilySyncError) -> Bool {
        let found = try await lookup(Member.zoneName(of: member), names: [ParentPIN.recordName])
        return ParentPIN.isSet(found.records.first?.record?.fields)
    }
}
