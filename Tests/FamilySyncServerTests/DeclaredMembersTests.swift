import FamilySyncCore
import FamilySyncProtocol
import FamilySyncTestSupport
@testable import FamilySyncServer
import Foundation
import Testing

/// Every request body declares its members for strict decoding, and must declare exactly what it
/// encodes, or strict decoding would refuse a member it knows, or let an unknown one through.
@Suite struct DeclaredMembersTests {
    static func paths(_ json: Any, _ prefix: String = "") -> Set<String> {
        if let object = json as? [String: Any] {
            return object.reduce(into: []) { result, entry in
                let path = prefix.isEmpty ? entry.key : "\(prefix).\(entry.key)"
                result.insert(path)
                result.formUnion(paths(entry.value, path))
            }
        }
        if let array = json as? [Any] { return array.reduce(into: []) { $0.formUnion(paths($1, prefix + "[]")) } }
        return []
    }

    static func paths(_ tree: MemberTree, _ prefix: String = "") -> Set<String> {
        switch tree {
        case .any: return []
        case .nullable(let tree): return paths(tree, prefix)
        case .object(let members):
            return members.reduce(into: []) { result, entry in
                let path = prefix.isEmpty ? entry.key : "\(prefix).\(entry.key)"
                result.insert(path)
                result.formUnion(paths(entry.value, path))
            }
        case .array(let element): return paths(element, prefix + "[]")
        }
    }

    /// The members of `value`, every optional set, against its declaration; free-form members
    /// (record fields, payloads) hold one entry whose name must not count as declared.
    static func check<Body: Encodable & WireRequestBody>(
        in checked: inout Set<String>, _ value: Body, freeForm: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        checked.insert(String(describing: Body.self))
        let encoded = try JSONSerialization.jsonObject(with: WireCoding.makeEncoder().encode(value))
        let inside = Self.paths(encoded).filter { path in !freeForm.contains { path.hasPrefix($0 + ".") || path.hasPrefix($0 + "[]") } }
        #expect(inside == Self.paths(Body.members), sourceLocation: sourceLocation)
    }

    /// The paths of the members that take `null`.
    static func nullable(_ tree: MemberTree, _ prefix: String = "") -> Set<String> {
        switch tree {
        case .any: return []
        case .nullable(let inner): return nullable(inner, prefix).union([prefix])
        case .object(let members):
            return members.reduce(into: []) { result, entry in result.formUnion(nullable(entry.value, prefix.isEmpty ? entry.key : "\(prefix).\(entry.key)")) }
        case .array(let element): return nullable(element, prefix + "[]")
        }
    }

    /// Read off the types, the members that take `null` are the ones the server itself writes as
    /// null and a client may send back, and no other.
    @Test func onlyTheMembersTheServerWritesAsNullTakeIt() {
        #expect(Self.nullable(MultiZoneChangesRequest.members) == ["zones[].since"])
        #expect(Self.nullable(QueryRecordsRequest.members) == ["continuationMarker"])
        #expect(Self.nullable(HealthReportRequest.members) == ["errors[].errorDescription", "errors[].memoryUsageMB"])
        #expect(Self.nullable(UsageUploadRequest.members).isEmpty)
        #expect(Self.nullable(ModifyRecordsRequest.members).isEmpty)
    }

    static let device = DeviceRegistration(name: "Phone", platform: .ios, timeZone: "UTC")

    @Test func everyRequestBodyDeclaresWhatItEncodes() throws {
        var checked: Set<String> = []
        try Self.check(in: &checked, UsageUploadRequest(timeZone: "UTC", records: [UsageRecordBody(
            recordID: UUID().uuidString, logicalID: "a", displayName: "A", bundleIdentifier: "b", category: "learning",
            sessionStart: Date(), sessionEnd: Date(), totalSeconds: 1, earnedPoints: 1, deviceID: UUID().uuidString, pickups: 1
        )]))
        try Self.check(in: &checked, UsageTotalsRequest(timeZone: "UTC", date: "2026-11-20", apps: [UsageTotalBody(
            logicalID: "a", displayName: "A", bundleIdentifier: "b", category: "social_media", totalSeconds: 60, pickups: 2, earnedPoints: 1
        )]))
        try Self.check(in: &checked, HealthReportRequest(heartbeatAt: Date(), monitoringActive: true, memoryUsageMB: 5, notificationSequence: 3, errors: [ExtensionErrorBody(
            id: UUID(), timestamp: Date(), eventName: "e", action: "record_usage", success: false, errorDescription: "d", memoryUsageMB: 4
        )], appVersion: "2.4.1", osVersion: "18.1"))
        try Self.check(in: &checked, CreateFamilyRequest(device: Self.device))
        try Self.check(in: &checked, UpdateDeviceRequest(name: "a", childName: "b", timeZone: "UTC", tracked: true))
        try Self.check(in: &checked, CreatePairingRequest(role: .child, childName: "a", ttlSeconds: 60, memberId: UUID()))
        try Self.check(in: &checked, AcceptPairingRequest(qrPayload: "q", pairingId: "p", token: "t", device: Self.device))
        try Self.check(in: &checked, StartSignInRequest(device: Self.device))
        try Self.check(in: &checked, TakeSignInRequest(code: "c", qrPayload: "q"))
        try Self.check(in: &checked, ClaimSignInRequest(secret: "s"))
        try Self.check(in: &checked, CreateZoneRequest(zoneName: "z"))
        try Self.check(in: &checked, ModifyRecordsRequest(operations: [RecordOperation(operationType: .create, record: RecordInput(
            recordName: "r", recordType: "T", fields: ["x": .number(1)], recordChangeTag: "t", clientModifiedAt: Date()
        ))], atomic: true), freeForm: ["operations[].record.fields"])
        try Self.check(in: &checked, LookupRecordsRequest(recordNames: ["r"]))
        try Self.check(in: &checked, MultiZoneChangesRequest(zones: [.init(zoneName: "z", since: "t")], limit: 1, format: .compact))
        try Self.check(in: &checked, QueryRecordsRequest(
            recordType: "T", filterBy: [.init(fieldName: "f", comparator: .equals, value: .number(1))], sortBy: [.init(fieldName: "f", ascending: true)],
            resultsLimit: 1, continuationMarker: "m"
        ))
        try Self.check(in: &checked, CreateCommandRequest(commandType: "block", payload: ["x": .number(1)], expiresInSeconds: 60, configuration: [["logicalID": .string("a")]]), freeForm: ["payload", "configuration"])
        try Self.check(in: &checked, CommandResultRequest(status: "failed", error: "e"))
        try Self.check(in: &checked, CreateMemberRequest(name: "a", role: .child))
        try Self.check(in: &checked, UpdateMemberRequest(name: "a"))
        try Self.check(in: &checked, MoveDeviceRequest(memberId: UUID()))
        try Self.check(in: &checked, RecoverFamilyRequest(recoveryCode: "c", appleIdentityToken: "t", nonce: "n", device: Self.device))
        try Self.check(in: &checked, LinkAppleAccountRequest(identityToken: "t", nonce: "n"))
        try Self.check(in: &checked, ReportAlertRequest(clientAlertID: UUID(), category: "gaming", logicalID: "a", usedMinutes: 1, message: "m"))
        try Self.check(in: &checked, PushRegistrationRequest(token: "t", topic: "app.example"))
        try Self.check(in: &checked, SetParentPINRequest(pin: "1234"))
        try Self.check(in: &checked, VerifyParentPINRequest(pin: "1234"))
        try Self.check(in: &checked, SetRetentionRequest(days: ["usageSessions": 30]), freeForm: ["days"])

        // Every declaration in the sources is checked here: a new request body cannot be declared
        // by hand and left unchecked.
        var declared: Set<String> = []
        for path in TestPaths.swiftFiles(under: "Sources") {
            for match in try TestPaths.text(of: path).matches(of: /extension (\w+): WireRequestBody/) { declared.insert(String(match.1)) }
        }
        #expect(declared.count > 20, "the scan found the declarations")
        #expect(declared == checked, "declared, not checked: \(declared.subtracting(checked).sorted()); checked, not declared: \(checked.subtracting(declared).sorted())")
    }
}
