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
        let echoed = try JSONSerialization.jsonObject(with: WireCoding.makeEncoder().encode(value), options: [.fragmentsAllowed])
        if let unknown = firstUnknownMember(input, echoed, path: "") {
            throw FamilySyncError.badRequest("Unknown member '\(unknown.split(separator: ".").last.map(String.init) ?? unknown)'.", field: unknown)
        }
        return value
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
