import Foundation

/// Finds a member named twice in one object. JSON parsers disagree on which of the two counts
/// (Foundation's keeps one silently), so a request that names a member twice is refused rather
/// than read one way here and another way by a proxy or a client's own checks.
enum DuplicateMembers {
    private struct Frame {
        var isObject: Bool
        var keys: Set<String> = []
        var key: String?
        var expectingKey = true
        var index = 0
    }

    /// The path of the first repeated member (`records[2].recordID`), or nil. `json` must already
    /// be known to be valid JSON: this only walks its structure.
    static func firstPath(in json: Data) -> String? {
        json.withUnsafeBytes { bytes in firstPath(in: bytes) }
    }

    private static func firstPath(in bytes: UnsafeRawBufferPointer) -> String? {
        var stack: [Frame] = []
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "{"):
                stack.append(Frame(isObject: true))
            case UInt8(ascii: "["):
                stack.append(Frame(isObject: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                stack.removeLast()
            case UInt8(ascii: ","):
                if stack[stack.count - 1].isObject { stack[stack.count - 1].expectingKey = true } else { stack[stack.count - 1].index += 1 }
            case UInt8(ascii: "\""):
                var end = i + 1
                var escaped = false
                while bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                if let top = stack.last, top.isObject, top.expectingKey {
                    let key = memberName(UnsafeRawBufferPointer(rebasing: bytes[(i + 1)..<end]), escaped: escaped)
                    if top.keys.contains(key) { return path(stack, key) }
                    stack[stack.count - 1].keys.insert(key)
                    stack[stack.count - 1].key = key
                    stack[stack.count - 1].expectingKey = false
                }
                i = end
            default:
                break
            }
            i += 1
        }
        return nil
    }

    /// A name as the parser reads it, so that `"a"` and `"\u0061"` are the same member.
    private static func memberName(_ raw: UnsafeRawBufferPointer, escaped: Bool) -> String {
        guard escaped else { return String(decoding: raw, as: UTF8.self) }
        let quoted = Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")])
        return (try? JSONDecoder().decode(String.self, from: quoted)) ?? String(decoding: raw, as: UTF8.self)
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
