import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Hummingbird

extension Request {
    /// Reads the body (refusing more than the context's limit with 413) and decodes it strictly:
    /// malformed JSON, wrong types and unknown members are `BAD_REQUEST` naming the field.
    public func decodeJSON<Value: Codable>(as type: Value.Type, context: FamilySyncRequestContext) async throws -> Value {
        let buffer = try await body.collect(upTo: context.maxBodyBytes)
        return try StrictJSON.decode(Value.self, from: Data(buffer.readableBytesView))
    }
}

/// JSON decoding that rejects members the type does not know (PROTOCOL §1), without a list of
/// keys per type: the decoded value is encoded again, and every member of the input that did not
/// survive the round trip is unknown. Explicit `null`s are skipped, as a decoded `nil` is not
/// encoded. Types whose members are free-form (custom record fields) keep every member and so pass.
enum StrictJSON {
    static func decode<Value: Codable>(_ type: Value.Type, from data: Data) throws -> Value {
        let value = try WireCoding.makeDecoder().decode(Value.self, from: data)
        let input = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        let unknown: String?
        if let declared = Value.self as? any DeclaresMembers.Type {
            unknown = firstUnknownMember(input, declared.members, path: "")
        } else {
            let echoed = try JSONSerialization.jsonObject(with: WireCoding.makeEncoder().encode(value), options: [.fragmentsAllowed])
            unknown = firstUnknownMember(input, echoed, path: "")
        }
        if let unknown {
            throw FamilySyncError.badRequest("Unknown member '\(unknown.split(separator: ".").last.map(String.init) ?? unknown)'.", field: unknown)
        }
        return value
    }

    /// The same check against a declared tree of members (no encoding, no second parse).
    private static func firstUnknownMember(_ input: Any, _ members: MemberTree, path: String) -> String? {
        switch members {
        case .any:
            return nil
        case .object(let known):
            guard let object = input as? [String: Any] else { return nil }
            for key in object.keys.sorted() where !(object[key] is NSNull) {
                let member = path.isEmpty ? key : "\(path).\(key)"
                guard let tree = known[key] else { return member }
                if let unknown = firstUnknownMember(object[key]!, tree, path: member) { return unknown }
            }
        case .array(let element):
            guard let array = input as? [Any] else { return nil }
            for (index, item) in array.enumerated() {
                if let unknown = firstUnknownMember(item, element, path: "\(path)[\(index)]") { return unknown }
            }
        }
        return nil
    }

    private static func firstUnknownMember(_ input: Any, _ echoed: Any, path: String) -> String? {
        if let object = input as? [String: Any] {
            let known = echoed as? [String: Any] ?? [:]
            for key in object.keys.sorted() where !(object[key] is NSNull) {
                let member = path.isEmpty ? key : "\(path).\(key)"
                guard let echoedValue = known[key] else { return member }
                if let unknown = firstUnknownMember(object[key]!, echoedValue, path: member) { return unknown }
            }
        } else if let array = input as? [Any], let echoedArray = echoed as? [Any] {
            for (index, element) in array.enumerated() where index < echoedArray.count {
                if let unknown = firstUnknownMember(element, echoedArray[index], path: "\(path)[\(index)]") { return unknown }
            }
        }
        return nil
    }
}

/// The members a JSON body may have, for bodies large enough that the round trip of `StrictJSON`
/// costs (a 1000-record usage upload). A test checks each declared tree against the round trip.
indirect enum MemberTree: Sendable {
    /// Anything (free-form objects, scalars).
    case any
    case object([String: MemberTree])
    case array(MemberTree)
}

protocol DeclaresMembers {
    static var members: MemberTree { get }
}

extension UsageUploadRequest: DeclaresMembers {
    static let members: MemberTree = .object([
        "timeZone": .any,
        "records": .array(.object(Dictionary(uniqueKeysWithValues: [
            "recordID", "logicalID", "displayName", "bundleIdentifier", "category", "sessionStart", "sessionEnd", "totalSeconds", "earnedPoints", "deviceID",
        ].map { ($0, MemberTree.any) }))),
    ])
}
