import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// JSON decoding that holds a body to the members its type declares (PROTOCOL §1): a member the
/// type does not know is refused even when its value is `null`, and `null` is refused for a
/// member that does not take it, where decoding alone would read it as "absent" (a `PATCH` would
/// take `{"timeZone": null}` as "unchanged").
enum StrictJSON {
    static func decode<Value: WireRequestBody>(_ type: Value.Type, from data: Data) throws -> Value {
        let value: Value
        do {
            value = try WireCoding.makeDecoder().decode(Value.self, from: data)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // Also what Foundation says of a number its member cannot hold (`4.1` for an integer):
            // that member named, if so.
            if let unfit = UnfitNumbers.diagnose(Value.self, in: data) { throw unfit }
            throw DecodingError.dataCorrupted(context)
        }
        let members = Value.members
        let findings = MemberScan.scan(data, against: members)
        if let repeated = findings.repeated {
            throw FamilySyncError.badRequest("The member '\(repeated.split(separator: ".").last.map(String.init) ?? repeated)' appears twice.", field: repeated)
        }
        if let nul = findings.nul {
            let name = nul.isEmpty ? "The body" : "The member '\(nul)'"
            throw FamilySyncError.badRequest("\(name) holds a NUL character (\\u0000), which no text here may hold.", field: nul.isEmpty ? nil : nul)
        }
        if let unkept = findings.unkept {
            throw FamilySyncError.badRequest(
                "The member '\(unkept.path)' holds \(unkept.number), which is kept only as the nearest double: an integer here is exact within ±2^53 (9007199254740992). Send more digits as a string.",
                field: unkept.path
            )
        }
        if findings.undeclared {
            // Which member, with its path: the body parsed again and walked in key order, so that
            // of several the same one is named every time.
            try check(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]), members, path: "")
        }
        return value
    }

    /// Throws for the first member, in key order, that `members` does not declare or that is
    /// null where it may not be.
    static func check(_ input: Any, _ members: MemberTree, path: String) throws(FamilySyncError) {
        switch members {
        case .any:
            return
        case .nullable(let tree):
            if !(input is NSNull) { try check(input, tree, path: path) }
        case .object(let known):
            guard let object = input as? [String: Any] else { return }
            for key in object.keys.sorted() {
                let member = path.isEmpty ? key : "\(path).\(key)"
                guard let tree = known[key] else {
                    throw .badRequest("Unknown member '\(key)'.", field: member)
                }
                let value = object[key]!
                if value is NSNull, !tree.takesNull {
                    throw .badRequest("The member '\(key)' may not be null; leave it out instead.", field: member)
                }
                try check(value, tree, path: member)
            }
        case .array(let element):
            guard let array = input as? [Any] else { return }
            for (index, item) in array.enumerated() {
                try check(item, element, path: "\(path)[\(index)]")
            }
        }
    }
}
