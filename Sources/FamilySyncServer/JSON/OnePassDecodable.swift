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
