import FamilySyncProtocol
@testable import FamilySyncServer
import Foundation
import Testing

/// A body type that declares its members for strict decoding must declare exactly what it encodes,
/// or strict decoding would refuse a member it knows, or let an unknown one through.
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
        case .object(let members):
            return members.reduce(into: []) { result, entry in
                let path = prefix.isEmpty ? entry.key : "\(prefix).\(entry.key)"
                result.insert(path)
                result.formUnion(paths(entry.value, path))
            }
        case .array(let element): return paths(element, prefix + "[]")
        }
    }

    @Test func usageUploadsDeclareWhatTheyEncode() throws {
        let full = UsageUploadRequest(timeZone: "UTC", records: [UsageRecordBody(
            recordID: UUID().uuidString, logicalID: "a", displayName: "A", bundleIdentifier: "b", category: "learning",
            sessionStart: Date(), sessionEnd: Date(), totalSeconds: 1, earnedPoints: 1, deviceID: UUID().uuidString
        )])
        let encoded = try JSONSerialization.jsonObject(with: WireCoding.makeEncoder().encode(full))
        #expect(Self.paths(encoded) == Self.paths(UsageUploadRequest.members))
    }
}
