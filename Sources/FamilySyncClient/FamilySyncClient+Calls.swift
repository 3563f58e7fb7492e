import FamilySyncCore
import FamilySyncProtocol
import Foundation

// One typed call per endpoint of PROTOCOL.md, grouped by section. Ids travel lowercased.

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

    // MARK: Zones, records, changes (§4–§5)

    public func zones() async throws(FamilySyncError) -> [ZoneBody] {
        try await send(.GET, "/v1/zones", as: ZoneList.self).zones
    }

    public func createZone(_ name: String) async throws(FamilySyncError) -> ZoneBody {
        try await send(.POST, "/v1/zones", body: CreateZoneRequest(zoneName: name), as: ZoneBody.self)
    }

    public func deleteZone(_ name: String) async throws(FamilySyncError) {
        _ = try await send(.DELETE, "/v1/zones/\(name)", as: EmptyResponse.self)
    }

    /// `idempotencyKey` (§1.2.1): the same key sent again with the same request gets the first
    /// answer again, so an answer lost on the way may be asked for again safely.
    public func modify(_ zone: String, _ request: ModifyRecordsRequest, idempotencyKey: String? = nil) async throws(FamilySyncError) -> ModifyRecordsResponse {
        // Forced saves and deletes end in the same state however often they arrive.
        try await send(
            .POST, "/v1/zones/\(zone)/records/modify", body: request,
            replayable: request.operations.allSatisfy { [.forceReplace, .forceUpdate, .forceDelete].contains($0.operationType) }, idempotencyKey: idempotencyKey,
            as: ModifyRecordsResponse.self
        )
    }

    public func lookup(_ zone: String, names: [String]) async throws(FamilySyncError) -> LookupRecordsResponse {
        try await send(.POST, "/v1/zones/\(zone)/records/lookup", body: LookupRecordsRequest(recordNames: names), replayable: true, as: LookupRecordsResponse.self)
    }

    public func query(_ zone: String, _ request: QueryRecordsRequest) async throws(FamilySyncError) -> QueryRecordsResponse {
        try await send(.POST, "/v1/zones/\(zone)/records/query", body: request, replayable: true, as: QueryRecordsResponse.self)
    }

    /// `GET /v1/zones/{zone}/changes`: one page after `since` (nil: from the start).
    public func zoneChanges(_ zone: String, since: String?, limit: Int? = nil) async throws(FamilySyncError) -> ZoneChangesResponse {
        try await send(.GET, "/v1/zones/\(zone)/changes", query: [("since", since), ("limit", limit.map(String.init))], as: ZoneChangesResponse.self)
    }

    /// `POST /v1/changes/zones`: a page of each zone (at most 50), after the token given with it
    /// (nil: from the start), in one round trip. `limit` is per zone; the whole answer holds at
    /// most 1000 records, so a zone may say `moreComing` before its `limit`. A zone that failed
    /// alone (not found, its token wrong or expired) is an entry whose `outcome` is that error.
    public func changes(inZones zones: [MultiZoneChangesRequest.Zone], limit: Int? = nil) async throws(FamilySyncError) -> [ZoneChangesResult] {
        try await send(.POST, "/v1/changes/zones", body: MultiZoneChangesRequest(zones: zones, limit: limit), replayable: true, as: MultiZoneChangesResponse.self).zones
    }

    /// `GET /v1/changes`: the zones changed after `since`.
    public func databaseChanges(since: String?, limit: Int? = nil) async throws(FamilySyncError) -> DatabaseChangesResponse {
        try await send(.GET, "/v1/changes", query: [("since", since), ("limit", limit.map(String.init))], as: DatabaseChangesResponse.self)
    }

    /// `GET /v1/poll` (§6): held up to `timeout` seconds until something the device sees changes.
    public func poll(since: String?, timeout: Int = 30) async throws(FamilySyncError) -> PollResponse {
        try await send(.GET, "/v1/poll", query: [("since", since), ("timeout", String(timeout))], as: PollResponse.self)
    }

    // MARK: Monitoring (§7)

    /// `idempotencyKey` (§1.2.1): sent again with the same key, the command is made once.
    public func sendCommand(to child: UUID, _ request: CreateCommandRequest, idempotencyKey: String? = nil) async throws(FamilySyncError) -> CommandBody {
        try await send(.POST, "/v1/devices/\(child.lowercased)/commands", body: request, idempotencyKey: idempotencyKey, as: CommandBody.self)
    }

    /// The child's commands; when the child itself asks, its pending ones become delivered.
    public func commands(of child: UUID, status: CommandStatusFilter? = nil) async throws(FamilySyncError) -> [CommandBody] {
        try await send(.GET, "/v1/devices/\(child.lowercased)/commands", query: [("status", status?.rawValue)], as: CommandList.self).commands
    }

    public func reportResult(of command: UUID, executed: Bool, error: String? = nil) async throws(FamilySyncError) -> CommandBody {
        let body = CommandResultRequest(status: executed ? "executed" : "failed", error: executed ? nil : error)
        return try await send(.POST, "/v1/commands/\(command.lowercased)/result", body: body, as: CommandBody.self)
    }

    public func cancelCommand(_ command: UUID) async throws(FamilySyncError) -> CommandBody {
        try await send(.POST, "/v1/commands/\(command.lowercased)/cancel", body: NoBody(), as: CommandBody.self)
    }

    public func uploadUsage(_ request: UsageUploadRequest) async throws(FamilySyncError) -> UsageUploadResponse {
        try await send(.POST, "/v1/usage", body: request, replayable: true, as: UsageUploadResponse.self)
    }

    /// §9.2: this device's running totals for a day. Send them as often as they grow (each app's
    /// largest total is kept, so a late or repeated report is harmless).
    public func uploadTotals(_ request: UsageTotalsRequest) async throws(FamilySyncError) -> UsageTotalsResponse {
        try await send(.POST, "/v1/usage/totals", body: request, replayable: true, as: UsageTotalsResponse.self)
    }

    /// §10: a heartbeat and errors of this device's monitoring extension (`HealthReporter` sends
    /// them with its queue of errors); answers the device's day.
    public func reportHealth(_ request: HealthReportRequest) async throws(FamilySyncError) -> DeviceHealthBody {
        try await send(.POST, "/v1/devices/me/health", body: request, as: DeviceHealthBody.self)
    }

    /// §10: a device's tracking health on `date` (its today when nil).
    public func health(of device: UUID, date: String? = nil) async throws(FamilySyncError) -> DeviceHealthBody {
        try await send(.GET, "/v1/devices/\(device.lowercased)/health", query: [("date", date)], as: DeviceHealthBody.self)
    }

    /// §10: the plain-text diagnostics export of a device's day (three sections).
    public func healthExport(of device: UUID, date: String? = nil) async throws(FamilySyncError) -> String {
        try await send(.GET, "/v1/devices/\(device.lowercased)/health", query: [("date", date)], body: Optional<NoBody>.none, accept: "text/plain", as: String.self)
    }

    /// §10.1, the operator's: the weekly tracking report of `week` (`2026-W48`; the last whole week
    /// when nil), for a client made with the operator token as its credential
    /// (`FamilySyncClient(serverURL:credential:)`), not a device's.
    public func trackingReport(week: String? = nil) async throws(FamilySyncError) -> TrackingReportBody {
        try await send(.GET, "/v1/fleet/tracking-report", query: [("week", week)], as: TrackingReportBody.self)
    }

    /// §10.1: the same report as text, as `familysync fleet report` prints it.
    public func trackingReportText(week: String? = nil) async throws(FamilySyncError) -> String {
        try await send(.GET, "/v1/fleet/tracking-report", query: [("week", week)], body: Optional<NoBody>.none, accept: "text/plain", as: String.self)
    }

    /// §11: what a device shields at `at` (now when nil): its member's schedules, configured
    /// blocking and executed block/unblock commands.
    public func shieldState(of device: UUID, at: Date? = nil) async throws(FamilySyncError) -> ShieldStateBody {
        try await send(.GET, "/v1/devices/\(device.lowercased)/shield-state", query: [("at", at.map(Instant.format))], as: ShieldStateBody.self)
    }

    /// Dates `YYYY-MM-DD`, both included; days without usage come as zeros.
    public func summaries(of child: UUID, from: String, to: String) async throws(FamilySyncError) -> [DailySummaryBody] {
        try await send(.GET, "/v1/devices/\(child.lowercased)/summaries", query: [("from", from), ("to", to)], as: SummaryList.self).summaries
    }

    public func usage(of child: UUID, from: Date, to: Date, limit: Int? = nil, cursor: String? = nil) async throws(FamilySyncError) -> UsageList {
        try await send(.GET, "/v1/devices/\(child.lowercased)/usage", query: [
            ("from", Instant.format(from)), ("to", Instant.format(to)), ("limit", limit.map(String.init)), ("cursor", cursor),
        ], as: UsageList.self)
    }

    public func report(of child: UUID, from: String, to: String, granularity: UsageReport.Granularity = .day) async throws(FamilySyncError) -> ReportBody {
        try await send(.GET, "/v1/devices/\(child.lowercased)/report", query: [("from", from), ("to", to), ("granularity", granularity.rawValue)], as: ReportBody.self)
    }

    /// The same report as RFC 4180 CSV.
    public func reportCSV(of child: UUID, from: String, to: String, granularity: UsageReport.Granularity = .day) async throws(FamilySyncError) -> String {
        try await send(
            .GET, "/v1/devices/\(child.lowercased)/report", query: [("from", from), ("to", to), ("granularity", granularity.rawValue)],
            body: Optional<NoBody>.none, accept: "text/csv", as: String.self
        )
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

    // MARK: Budgets and alerts (§9.3–§9.4)

    /// Writes a member's `Budget` record (parents): `fields` as §9.3 describes them
    /// (`Budget.rules`); the record is `budget-<budgetID>` in the member's zone.
    public func setBudget(of member: UUID, _ fields: [String: JSONValue]) async throws(FamilySyncError) -> RecordBody {
        guard case .string(let id)? = fields["budgetID"] else { throw .badRequest("A budget needs its budgetID.", field: "budgetID") }
        return try await replace(Budget.recordName(id), type: RecordTypeName.budget, fields: fields, in: Member.zoneName(of: member))
    }

    /// Deletes a member's budget (`NOT_FOUND` for none of that id); its alerts stay.
    public func deleteBudget(_ id: String, of member: UUID) async throws(FamilySyncError) {
        _ = try await modify(Member.zoneName(of: member), ModifyRecordsRequest(operations: [RecordOperation(
            operationType: .forceDelete, record: RecordInput(recordName: Budget.recordName(id), recordType: RecordTypeName.budget)
        )]))
    }

    /// §11: writes a member's `Schedule` record (`schedule-<scheduleID>`), replacing one of that id.
    public func setSchedule(of member: UUID, _ fields: [String: JSONValue]) async throws(FamilySyncError) -> RecordBody {
        guard case .string(let id)? = fields["scheduleID"] else { throw .badRequest("A schedule needs its scheduleID.", field: "scheduleID") }
        return try await replace(Schedule.recordName(id), type: RecordTypeName.schedule, fields: fields, in: Member.zoneName(of: member))
    }

    /// The member's `Schedule` records, as stored.
    public func schedules(of member: UUID) async throws(FamilySyncError) -> [Schedule] {
        let page = try await query(Member.zoneName(of: member), QueryRecordsRequest(recordType: RecordTypeName.schedule, resultsLimit: 200))
        return page.records.compactMap { $0.fields.flatMap(Schedule.init(fields:)) }
    }

    /// Deletes a member's schedule (`NOT_FOUND` for none of that id).
    public func deleteSchedule(_ id: String, of member: UUID) async throws(FamilySyncError) {
        _ = try await modify(Member.zoneName(of: member), ModifyRecordsRequest(operations: [RecordOperation(
            operationType: .forceDelete, record: RecordInput(recordName: Schedule.recordName(id), recordType: RecordTypeName.schedule)
        )]))
    }

    /// §11: writes a member's `ShieldConfiguration` record (`shield-<shieldConfigurationID>`).
    public func setShieldConfiguration(of member: UUID, _ fields: [String: JSONValue]) async throws(FamilySyncError) -> RecordBody {
        guard case .string(let id)? = fields["shieldConfigurationID"] else {
            throw .badRequest("A shield configuration needs its shieldConfigurationID.", field: "shieldConfigurationID")
        }
        return try await replace(ShieldConfigurationFields.recordName(id), type: RecordTypeName.shieldConfiguration, fields: fields, in: Member.zoneName(of: member))
    }

    /// §11, the child's own app list: a tracked device writes an `AppConfiguration` into its own
    /// zone (`Device.zoneName`, as `me()` answers it), `create` without a change tag, else `replace`
    /// from that tag, stamped with this device's clock. A parent's newer write (or one at the same
    /// instant: the parent wins ties) comes back as `.conflict` with the parent's record.
    public func saveAppConfiguration(
        _ fields: [String: JSONValue], named recordName: String, changeTag: String? = nil, in zone: String, at clientModifiedAt: Date = Date()
    ) async throws(FamilySyncError) -> RecordSaveOutcome {
        let operation = RecordOperation(
            operationType: changeTag == nil ? .create : .replace,
            record: RecordInput(recordName: recordName, recordType: RecordTypeName.appConfiguration, fields: fields, recordChangeTag: changeTag, clientModifiedAt: clientModifiedAt)
        )
        guard let outcome = try await save([operation], in: zone).first else { throw .internalError }
        return outcome
    }

    // MARK: Push (§12)

    /// Registers this device's APNs token (hex, as `didRegisterForRemoteNotificationsWithDeviceToken`
    /// gives it as bytes), its app's bundle id and APNs environment; replaces an earlier one.
    public func registerPush(token: String, topic: String, environment: PushRegistration.Environment = .production) async throws(FamilySyncError) {
        let registration = try PushRegistration.validated(provider: "apns", token: token, topic: topic, environment: environment.rawValue)
        _ = try await send(
            .PUT, "/v1/devices/me/push",
            body: PushRegistrationRequest(provider: registration.provider.rawValue, token: registration.token, topic: registration.topic, environment: environment.rawValue),
            as: EmptyResponse.self
        )
    }

    /// The same, from the token's bytes.
    public func registerPush(deviceToken: some Sequence<UInt8>, topic: String, environment: PushRegistration.Environment = .production) async throws(FamilySyncError) {
        try await registerPush(token: deviceToken.map { String(format: "%02x", $0) }.joined(), topic: topic, environment: environment)
    }

    /// No more pushes to this device (signing out, or notifications turned off).
    public func unregisterPush() async throws(FamilySyncError) {
        _ = try await send(.DELETE, "/v1/devices/me/push", as: EmptyResponse.self)
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

    /// The member's PIN as stored (salt, iterations, hash), for checking offline with
    /// `ParentPIN.matches(_:)`; nil while none is set. A device that syncs its member's zone has
    /// the same record from its changes.
    public func parentPIN(of member: UUID) async throws(FamilySyncError) -> ParentPIN? {
        let found = try await lookup(Member.zoneName(of: member), names: [ParentPIN.recordName])
        return found.records.first?.record?.fields.flatMap(ParentPIN.init(fields:))
    }

    /// One record written with `forceReplace`, as saved.
    func replace(_ name: String, type: String, fields: [String: JSONValue], in zone: String) async throws(FamilySyncError) -> RecordBody {
        let response = try await modify(zone, ModifyRecordsRequest(operations: [RecordOperation(
            operationType: .forceReplace, record: RecordInput(recordName: name, recordType: type, fields: fields)
        )]))
        // An atomic modify answers a refused write with its error: here, a saved record.
        guard let saved = response.records.first?.record else { throw .internalError }
        return saved
    }

    /// The member's `Budget` records, as stored.
    public func budgets(of member: UUID) async throws(FamilySyncError) -> [Budget] {
        let page = try await query(Member.zoneName(of: member), QueryRecordsRequest(recordType: RecordTypeName.budget, resultsLimit: 200))
        return page.records.compactMap { $0.fields.flatMap(Budget.init(fields:)) }
    }

    /// `GET /v1/members/{id}/budget-status`: each enabled budget against the member's day.
    public func budgetStatus(of member: UUID, date: String) async throws(FamilySyncError) -> BudgetStatusResponse {
        try await send(.GET, "/v1/members/\(member.lowercased)/budget-status", query: [("date", date)], as: BudgetStatusResponse.self)
    }

    /// `GET /v1/members/{id}/alerts`: newest first.
    public func alerts(of member: UUID, from: String, to: String, includeDismissed: Bool = false) async throws(FamilySyncError) -> [AlertBody] {
        try await send(
            .GET, "/v1/members/\(member.lowercased)/alerts", query: [("from", from), ("to", to), ("includeDismissed", includeDismissed ? "true" : nil)],
            as: AlertList.self
        ).alerts
    }

    /// `POST /v1/alerts/{id}/dismiss` (parents; idempotent).
    public func dismissAlert(_ id: UUID) async throws(FamilySyncError) -> AlertBody {
        try await send(.POST, "/v1/alerts/\(id.lowercased)/dismiss", body: NoBody(), as: AlertBody.self)
    }

    /// `POST /v1/alerts` (a tracked device): a threshold it watches fired. The same report again
    /// answers the stored alert.
    public func reportAlert(_ report: ReportAlertRequest) async throws(FamilySyncError) -> AlertBody {
        try await send(.POST, "/v1/alerts", body: report, as: AlertBody.self)
    }

    // MARK: Categories (§9.1)

    /// The family's `Category` records (a family's own categories, and renamed built-ins).
    public func categories() async throws(FamilySyncError) -> [[String: JSONValue]] {
        try await query("family", QueryRecordsRequest(recordType: RecordTypeName.category, resultsLimit: 1000)).records.compactMap(\.fields)
    }

    /// Writes a `Category` record (parents): a family's own `x-…` category, or a built-in's name,
    /// icon and default (never its kind).
    public func setCategory(_ fields: [String: JSONValue]) async throws(FamilySyncError) -> RecordBody {
        guard case .string(let text)? = fields["id"], let id = CategoryID(rawValue: text) else {
            throw .badRequest("A category needs a valid id.", field: "id")
        }
        let response = try await modify("family", ModifyRecordsRequest(operations: [RecordOperation(
            operationType: .forceReplace, record: RecordInput(recordName: CategoryFields.recordName(id), recordType: RecordTypeName.category, fields: fields)
        )]))
        guard let saved = response.records.first?.record else { throw .internalError }
        return saved
    }
}
