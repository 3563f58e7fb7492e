import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// A body type with a one-pass reading of its plain form (FamilySyncCore's `OnePassJSON`): the
/// hot paths' request bodies (modify, usage, totals, heartbeat), read once, straight into the wire
/// types, the members checked as they are read. A body not in the plain form goes the strict way
/// (`StrictJSON`), whose verdict and error stay the contract (`OnePassJSONTests` holds the two
/// equal over generated and mutated bodies).
protocol OnePassDecodable {
    init(onePass reader: inout OnePassJSON) throws(OnePassJSON.Miss)
}

extension OnePassJSON {
    /// The body read as a `Value`, or nil when it is not in the plain form.
    static func decode<Value: OnePassDecodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) -> Value? {
        reading(bytes, request: true) { reader throws(Miss) in try Value(onePass: &reader) }
    }

    /// An object's members, each handed to `member` as its type's key: a member the keys do not
    /// name, or one named twice, is a miss.
    mutating func members<Keys: CodingKey & CaseIterable>(of keys: Keys.Type, _ member: (inout OnePassJSON, Keys) throws(Miss) -> Void) throws(Miss) {
        var seen = SeenMembers()
        let all = Keys.allCases
        try object { reader, name throws(Miss) in
            var index = 0
            for key in all {
                if key.stringValue == name {
                    try seen.mark(index)
                    try member(&reader, key)
                    return
                }
                index += 1
            }
            throw Miss()
        }
    }

    /// An array of bodies read in one pass.
    mutating func list<Element: OnePassDecodable>() throws(Miss) -> [Element] {
        var list: [Element] = []
        try array { reader throws(Miss) in list.append(try Element(onePass: &reader)) }
        return list
    }

    /// A UUID in its text form.
    mutating func uuid() throws(Miss) -> UUID {
        guard let value = UUID(uuidString: try string()) else { throw Miss() }
        return value
    }

    /// An RFC 3339 instant, as `WireCoding` reads one.
    mutating func date() throws(Miss) -> Date {
        guard let date = WireCoding.parse(try string()) else { throw Miss() }
        return date
    }
}

extension Optional {
    /// A required member's value, or a miss when it was not sent.
    func required() throws(OnePassJSON.Miss) -> Wrapped {
        guard let self else { throw OnePassJSON.Miss() }
        return self
    }
}
