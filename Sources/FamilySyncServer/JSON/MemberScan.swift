import FamilySyncCore
import Foundation

/// One walk over a body's bytes that finds what strict decoding refuses beyond types:
///
/// - a member named twice in one object. JSON parsers disagree on which of the two counts
///   (Foundation's keeps one silently), so a request that names a member twice is refused rather
///   than read one way here and another way by a proxy or a client's own checks;
/// - a member its type does not declare, or `null` for a member that does not take it;
/// - a NUL character (`\u0000`) in a string, a member's name or its value. PostgreSQL's text and
///   jsonb cannot hold one, so it is refused where JSON is read, naming the member, rather than
///   failing the write deep in the database;
/// - an integer in a free-form value (a record's fields) that a double cannot keep exactly.
///
/// The second only says whether there is one: `StrictJSON` then finds which, and says so with its
/// path, over the parsed body. A body that passes, nearly all of them, is parsed once by the
/// decoder and walked once here (parsing it again into `Any` to walk it was as costly as decoding
/// it: perf, 400-operation modify batches).
enum MemberScan {
    struct Findings: Equatable {
        /// The path of the first repeated member (`records[2].recordID`).
        var repeated: String?
        /// Whether some member is undeclared, or null where it may not be.
        var undeclared = false
        /// The path of the first string holding a NUL: a value's member or element, or a name's
        /// member. The empty path is the body itself.
        var nul: String?
        /// The path of the first number in a free-form value that a double cannot keep
        /// (`FreeFormNumbers`), with the number as sent.
        var unkept: (path: String, number: String)?

        static func == (a: Findings, b: Findings) -> Bool {
            a.repeated == b.repeated && a.undeclared == b.undeclared && a.nul == b.nul && a.unkept?.path == b.unkept?.path && a.unkept?.number == b.unkept?.number
        }
    }

    private struct Frame {
        var isObject: Bool
        /// What this object's members or this array's elements are declared as; nil: not looked
        /// into (a free-form object such as a record's fields).
        var declared: MemberTree?
        var keys: Set<String> = []
        var key: String?
        var expectingKey = true
        var index = 0
        /// The declaration of the member whose value comes next; nil: not looked into.
        var memberTree: MemberTree?

        /// The declaration of the value that begins now: the current member's, or an element's.
        var valueTree: MemberTree? {
            if isObject { return memberTree }
            if case .array(let element)? = declared { return element }
            return nil
        }
    }

    /// The path of the first repeated member, or nil. `json` must already be known to be valid
    /// JSON: this only walks its structure.
    static func firstRepeated(in json: Data) -> String? {
        scan(json, against: .any).repeated
    }

    /// What the body holds against `members`. `json` must already be known to be valid JSON.
    static func scan(_ json: Data, against members: MemberTree) -> Findings {
        json.withUnsafeBytes { bytes in scan(bytes, members) }
    }

    private static func scan(_ bytes: UnsafeRawBufferPointer, _ members: MemberTree) -> Findings {
        var stack: [Frame] = []
        var findings = Findings()
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[i] == UInt8(ascii: "{")
                let declared = stack.isEmpty ? members : stack[stack.count - 1].valueTree
                stack.append(Frame(isObject: isObject, declared: declared.flatMap { contents(of: $0, isObject: isObject) }))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                stack.removeLast()
            case UInt8(ascii: ","):
                if stack[stack.count - 1].isObject { stack[stack.count - 1].expectingKey = true } else { stack[stack.count - 1].index += 1 }
            case UInt8(ascii: "n"):
                // Outside strings only `null` has an `n`: a member's null value where its
                // declaration does not take one.
                if let top = stack.last, top.isObject, !top.expectingKey, let tree = top.memberTree, !tree.takesNull {
                    findings.undeclared = true
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = i + 1
                while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
                // Only where nothing declares the value (a free-form object's member, an array's
                // element inside one): a declared integer member has its own type.
                if findings.unkept == nil, let top = stack.last, top.declared == nil {
                    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[i..<end]), as: UTF8.self)
                    if !FreeFormNumbers.isKept(text) { findings.unkept = (location(stack), text) }
                }
                i = end - 1
            case UInt8(ascii: "\""):
                var end = i + 1
                var escaped = false
                var nul = false
                while bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                        if !nul, isNUL(bytes, escapeAt: end) { nul = true }
                    }
                    end += 1
                }
                let isName = stack.last.map { $0.isObject && $0.expectingKey } ?? false
                if nul, findings.nul == nil, !isName { findings.nul = location(stack) }
                if isName, let top = stack.last {
                    let key = memberName(UnsafeRawBufferPointer(rebasing: bytes[(i + 1)..<end]), escaped: escaped)
                    if nul, findings.nul == nil { findings.nul = path(stack, key) }
                    if top.keys.contains(key) {
                        findings.repeated = path(stack, key)
                        return findings
                    }
                    var memberTree: MemberTree?
                    if case .object(let known)? = top.declared {
                        memberTree = known[key]
                        if memberTree == nil { findings.undeclared = true }
                    }
                    stack[stack.count - 1].keys.insert(key)
                    stack[stack.count - 1].key = key
                    stack[stack.count - 1].expectingKey = false
                    stack[stack.count - 1].memberTree = memberTree
                }
                i = end
            default:
                break
            }
            i += 1
        }
        return findings
    }

    /// What a container declared as `tree` holds: an object's members, an array's elements; nil
    /// where nothing inside is looked into (as `StrictJSON`'s walk does not).
    private static func contents(of tree: MemberTree, isObject: Bool) -> MemberTree? {
        switch tree {
        case .any: return nil
        case .nullable(let inner): return contents(of: inner, isObject: isObject)
        case .object: return isObject ? tree : nil
        case .array: return isObject ? nil : tree
        }
    }

    /// A name as the parser reads it, so that `"a"` and `"\u0061"` are the same member.
    private static func memberName(_ raw: UnsafeRawBufferPointer, escaped: Bool) -> String {
        guard escaped else { return String(decoding: raw, as: UTF8.self) }
        let quoted = Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")])
        return (try? JSONDecoder().decode(String.self, from: quoted)) ?? String(decoding: raw, as: UTF8.self)
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }

    /// Whether the escape whose letter is at `index` (after its backslash) is `\u0000`.
    private static func isNUL(_ bytes: UnsafeRawBufferPointer, escapeAt index: Int) -> Bool {
        guard index + 4 < bytes.count, bytes[index] == UInt8(ascii: "u") else { return false }
        return bytes[index + 1] == UInt8(ascii: "0") && bytes[index + 2] == UInt8(ascii: "0")
            && bytes[index + 3] == UInt8(ascii: "0") && bytes[index + 4] == UInt8(ascii: "0")
    }

    /// The path of the value that begins now: the innermost object's member, or array's element.
    private static func location(_ stack: [Frame]) -> String {
        var text = ""
        for frame in stack {
            if frame.isObject {
                text += text.isEmpty ? (frame.key ?? "") : "." + (frame.key ?? "")
            } else {
                text += "[\(frame.index)]"
            }
        }
        return text
    }

    private static func path(_ stack: [Frame], _ key: String) -> String {
        var text = ""
        for frame in stack.dropLast() {
            if frame.isObject {
                text += text.isEmpty ? (frame.key ?? "") : "." + (frame.key ?? "")
            } else {
                text += "[\(frame.index)]"
            }
        }
        return text.isEmpty ? key : text + "." + key
    }
}
