import Foundation

/// The members a known record type's `fields` may have, with their types and ranges (PROTOCOL
/// §5.2: known types are validated strictly; unknown members are refused).
public struct FieldRules: Sendable {
    public enum Kind: Sendable {
        case string(ClosedRange<Int>)
        case integer(ClosedRange<Int>)
        case bool
        case instant
        case oneOf(Set<String>)
        /// A string a check accepts (a category id, say), described for the error.
        case text(@Sendable (String) -> Bool, String)
        /// An object whose keys are among `keys`, each an integer in `range`.
        case integerMap(keys: Set<String>, range: ClosedRange<Int>)
        /// An array of `count` integers, each in `range`.
        case integerList(count: ClosedRange<Int>, range: ClosedRange<Int>)
        /// An array of `count` strings, each one `check` accepts (described for the error).
        case stringList(count: ClosedRange<Int>, check: @Sendable (String) -> Bool, String)
        /// `{"hour": 0–23, "minute": 0–59}`, a local time of day.
        case timeOfDay
    }

    public var typeName: String
    public var members: [String: (kind: Kind, required: Bool)]

    public init(_ typeName: String, _ members: [String: (kind: Kind, required: Bool)]) {
        self.typeName = typeName
        self.members = members
    }

    /// Every member known, every required one present and not null, each of its kind; the first
    /// fault (in name order) is a 400 naming `field.member`.
    public func validate(_ fields: [String: JSONValue], field: String) throws(FamilySyncError) {
        for name in fields.keys.sorted() where members[name] == nil {
            throw .badRequest("Unknown member '\(name)' of \(typeName).", field: "\(field).\(name)")
        }
        for (name, rule) in members.sorted(by: { $0.key < $1.key }) {
            let path = "\(field).\(name)"
            guard let value = fields[name], value != .null else {
                if rule.required { throw .badRequest("\(typeName) needs '\(name)'.", field: path) }
                continue
            }
            guard Self.accepts(rule.kind, value) else {
                throw .badRequest("'\(name)' has the wrong type or is out of range (\(Self.describe(rule.kind))).", field: path)
            }
        }
    }

    static func integer(_ value: JSONValue, in range: ClosedRange<Int>) -> Bool {
        guard case .number(let number) = value, number.rounded() == number, let int = Int(exactly: number) else { return false }
        return range.contains(int)
    }

    static func accepts(_ kind: Kind, _ value: JSONValue) -> Bool {
        switch (kind, value) {
        case (.string(let length), .string(let text)): length.contains(text.count)
        case (.integer(let range), _): integer(value, in: range)
        case (.bool, .bool): true
        case (.instant, .string(let text)): Instant.parse(text) != nil
        case (.oneOf(let values), .string(let text)): values.contains(text)
        case (.text(let check, _), .string(let text)): check(text)
        case (.integerMap(let keys, let range), .object(let object)):
            object.allSatisfy { keys.contains($0.key) && integer($0.value, in: range) }
        case (.integerList(let count, let range), .array(let values)):
            count.contains(values.count) && values.allSatisfy { integer($0, in: range) }
        case (.stringList(let count, let check, _), .array(let values)):
            count.contains(values.count) && values.allSatisfy { if case .string(let text) = $0 { check(text) } else { false } }
        case (.timeOfDay, .object(let object)):
            Set(object.keys) == ["hour", "minute"] && integer(object["hour"]!, in: 0...23) && integer(object["minute"]!, in: 0...59)
        default: false
        }
    }

    static func describe(_ kind: Kind) -> String {
        switch kind {
        case .string(let length): "a string of \(length.lowerBound)–\(length.upperBound) characters"
        case .integer(let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .bool: "true or false"
        case .instant: "an RFC 3339 instant"
        case .oneOf(let values): "one of " + values.sorted().joined(separator: ", ")
        case .text(_, let description): description
        case .integerMap(let keys, let range): "an object of " + keys.sorted().joined(separator: ", ") + " to whole numbers from \(range.lowerBound) to \(range.upperBound)"
        case .integerList(let count, let range): "\(count.lowerBound)–\(count.upperBound) whole numbers from \(range.lowerBound) to \(range.upperBound)"
        case .stringList(let count, _, let description): "\(count.lowerBound)–\(count.upperBound) of \(description)"
        case .timeOfDay: "{\"hour\": 0–23, \"minute\": 0–59}"
        }
    }
}
