import FamilySyncProtocol

// The members of every request body (PROTOCOL §1): what strict decoding accepts. A test holds
// each tree to what its type encodes.

extension DeviceRegistration {
    static let members = MemberTree.fields("name", "platform", "timeZone")
}

extension CreateFamilyRequest: DeclaresMembers {
    static let members = MemberTree.object(["device": DeviceRegistration.members])
}

extension UpdateDeviceRequest: DeclaresMembers {
    static let members = MemberTree.fields("name", "childName", "timeZone", "tracked")
}

extension CreatePairingRequest: DeclaresMembers {
    static let members = MemberTree.fields("role", "childName", "ttlSeconds", "memberId")
}

extension AcceptPairingRequest: DeclaresMembers {
    static let members = MemberTree.object([
        "qrPayload": .any, "pairingId": .any, "token": .any, "device": DeviceRegistration.members,
    ])
}

extension StartSignInRequest: DeclaresMembers {
    static let members = MemberTree.object(["device": DeviceRegistration.members])
}

extension TakeSignInRequest: DeclaresMembers {
    static let members = MemberTree.fields("code", "qrPayload")
}

extension ClaimSignInRequest: DeclaresMembers {
    static let members = MemberTree.fields("secret")
}

extension CreateZoneRequest: DeclaresMembers {
    static let members = MemberTree.fields("zoneName")
}

extension ModifyRecordsRequest: DeclaresMembers {
    static let members = MemberTree.object([
        "operations": .array(.object([
            "operationType": .any,
            "record": .fields("recordName", "recordType", "fields", "recordChangeTag", "clientModifiedAt"),
        ])),
        "atomic": .any,
    ])
}

extension MultiZoneChangesRequest: DeclaresMembers {
    static let members = MemberTree.object([
        // `"since": null` is "no token yet", as leaving it out: a client holding none may send what it holds.
        "zones": .array(.object(["zoneName": .any, "since": .nullable(.any)])),
        "limit": .any,
        "format": .any,
    ])
}

extension LookupRecordsRequest: DeclaresMembers {
    static let members = MemberTree.fields("recordNames")
}

extension QueryRecordsRequest: DeclaresMembers {
    static let members = MemberTree.object([
        "recordType": .any,
        "filterBy": .array(.fields("fieldName", "comparator", "value")),
        "sortBy": .array(.fields("fieldName", "ascending")),
        "resultsLimit": .any,
        // The last page answers `"continuationMarker": null`; a client may send it back as "from the start".
        "continuationMarker": .nullable(.any),
    ])
}

extension CreateCommandRequest: DeclaresMembers {
    static let members = MemberTree.fields("commandType", "payload", "expiresInSeconds", "configuration")
}

extension CommandResultRequest: DeclaresMembers {
    static let members = MemberTree.fields("status", "error")
}

extension UsageUploadRequest: DeclaresMembers {
    static let members = MemberTree.object([
        "timeZone": .any,
        "records": .array(.fields(
            "recordID", "logicalID", "displayName", "bundleIdentifier", "category", "sessionStart", "sessionEnd", "totalSeconds", "earnedPoints", "deviceID",
            "pickups"
        )),
    ])
}

extension UsageTotalsRequest: DeclaresMembers {
    static let members = MemberTree.object([
        "timeZone": .any, "date": .any,
        "apps": .array(.fields("logicalID", "displayName", "bundleIdentifier", "category", "totalSeconds", "pickups", "earnedPoints")),
    ])
}

extension HealthReportRequest: DeclaresMembers {
    static let members = MemberTree.object([
        "heartbeatAt": .any, "monitoringActive": .any, "memoryUsageMB": .any, "notificationSequence": .any, "appVersion": .any, "osVersion": .any,
        // An entry as the server lists it (null where there is nothing) may be sent back as it is.
        "errors": .array(.object([
            "id": .any, "timestamp": .any, "eventName": .any, "action": .any, "success": .any,
            "errorDescription": .nullable(.any), "memoryUsageMB": .nullable(.any),
        ])),
    ])
}

extension CreateMemberRequest: DeclaresMembers {
    static let members = MemberTree.fields("name", "role")
}

extension UpdateMemberRequest: DeclaresMembers {
    static let members = MemberTree.fields("name")
}

extension PushRegistrationRequest: DeclaresMembers {
    static let members = MemberTree.fields("provider", "token", "topic", "environment")
}

extension SetParentPINRequest: DeclaresMembers {
    static let members = MemberTree.fields("pin")
}

extension VerifyParentPINRequest: DeclaresMembers {
    static let members = MemberTree.fields("pin")
}

extension MoveDeviceRequest: DeclaresMembers {
    static let members = MemberTree.fields("memberId")
}

extension RecoverFamilyRequest: DeclaresMembers {
    static let members = MemberTree.object([
        "recoveryCode": .any, "appleIdentityToken": .any, "nonce": .any, "device": DeviceRegistration.members,
    ])
}

extension LinkAppleAccountRequest: DeclaresMembers {
    static let members = MemberTree.fields("identityToken", "nonce")
}

extension ReportAlertRequest: DeclaresMembers {
    static let members = MemberTree.fields("clientAlertID", "kind", "category", "logicalID", "usedMinutes", "message")
}

/// The kinds are checked by name in the controller, which names an unknown one with its path.
extension SetRetentionRequest: DeclaresMembers {
    static let members = MemberTree.object(["days": .any])
}
