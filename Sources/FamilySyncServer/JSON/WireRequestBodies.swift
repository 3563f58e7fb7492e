import FamilySyncProtocol

// The wire types a request's body is decoded to, strictly (`WireRequestDecoder`); each one's
// members are read off its `CodingKeys` (`MemberProbe`). `DeclaredMembersTests` checks every one
// listed here against what it encodes.
extension AcceptPairingRequest: WireRequestBody {}
extension ClaimSignInRequest: WireRequestBody {}
extension CommandResultRequest: WireRequestBody {}
extension CreateCommandRequest: WireRequestBody {}
extension CreateFamilyRequest: WireRequestBody {}
extension CreateMemberRequest: WireRequestBody {}
extension CreatePairingRequest: WireRequestBody {}
extension CreateZoneRequest: WireRequestBody {}
extension HealthReportRequest: WireRequestBody {}
extension LinkAppleAccountRequest: WireRequestBody {}
extension LookupRecordsRequest: WireRequestBody {}
extension ModifyRecordsRequest: WireRequestBody {}
extension MoveDeviceRequest: WireRequestBody {}
extension MultiZoneChangesRequest: WireRequestBody {}
extension PushRegistrationRequest: WireRequestBody {}
extension QueryRecordsRequest: WireRequestBody {}
extension RecoverFamilyRequest: WireRequestBody {}
extension ReportAlertRequest: WireRequestBody {}
extension SetParentPINRequest: WireRequestBody {}
/// The kinds are checked by name in the controller, which names an unknown one with its path.
extension SetRetentionRequest: WireRequestBody {}
extension StartSignInRequest: WireRequestBody {}
extension TakeSignInRequest: WireRequestBody {}
extension UpdateDeviceRequest: WireRequestBody {}
extension UpdateMemberRequest: WireRequestBody {}
extension UsageTotalsRequest: WireRequestBody {}
extension UsageUploadRequest: WireRequestBody {}
extension VerifyParentPINRequest: WireRequestBody {}

// The members that take `null` as "left out": the value the server itself writes there.

/// `"since": null` is "no token yet", as leaving it out: a client holding none may send what it holds.
extension MultiZoneChangesRequest.Zone: TakesNull {
    static let membersTakingNull: Set<String> = ["since"]
}

/// The last page answers `"continuationMarker": null`; a client may send it back as "from the start".
extension QueryRecordsRequest: TakesNull {
    static let membersTakingNull: Set<String> = ["continuationMarker"]
}

/// An entry as the server lists it (null where there is nothing) may be sent back as it is.
extension ExtensionErrorBody: TakesNull {
    static let membersTakingNull: Set<String> = ["errorDescription", "memoryUsageMB"]
}
