import FamilySyncCore
import Foundation
import Synchronization

/// The members a request body may have, read off its own `Decodable`: the type is decoded once
/// from a decoder that answers every question with a stand-in value and writes down each member
/// asked for, and of what shape (an object's members, an array's elements, a value not looked
/// into). So a body's members are declared once, by the type itself (its properties and
/// `CodingKeys`), and strict decoding (`StrictJSON`, `MemberScan`) follows them. A member asked for
/// after a stand-in the type refuses would be missed: `DeclaredMembersTests` holds each tree to
/// what the type encodes with every optional set.
enum MemberProbe {
    private static let trees = Mutex<[ObjectIdentifier: MemberTree]>([:])

    /// `type`'s members, read once and kept.
    static func members<Body: Decodable>(of type: Body.Type) -> MemberTree {
        if let known = trees.withLock({ $0[ObjectIdentifier(type)] }) { return known }
        let tree = shape(of: type)
        trees.withLock { $0[ObjectIdentifier(type)] = tree }
        return tree
    }

    /// What a value of `type` is on the wire.
    fileprivate static func shape<Value: Decodable>(of type: Value.Type) -> MemberTree {
        if let array = type as? any ProbedArray.Type { return .array(array.elementShape) }
        if type is any FreeFormMembers.Type { return .any }
        let decoder = ProbeDecoder()
        _ = try? Value(from: decoder)
        return decoder.observed.tree(takingNull: (type as? any TakesNull.Type)?.membersTakingNull ?? [])
    }

    /// A value of `type` to hand back to the decoding that asked for it.
    fileprivate static func standIn<Value: Decodable>(for type: Value.Type) throws -> Value {
        if let array = type as? any ProbedArray.Type { return array.empty as! Value }
        if let dictionary = type as? any FreeFormMembers.Type { return dictionary.empty as! Value }
        if let cases = type as? any CaseIterable.Type, let first = firstCase(of: cases) { return first as! Value }
        if type == UUID.self { return UUID() as! Value }
        return try Value(from: ProbeDecoder())
    }

    private static func firstCase<Cases: CaseIterable>(of type: Cases.Type) -> Cases? {
        type.allCases.first
    }
}

/// A body type some of whose members take `null` as "left out" (the value the server itself
/// writes there when there is nothing): every other member is refused as `null`.
protocol TakesNull {
    static var membersTakingNull: Set<String> { get }
}

/// A decoder that answers with stand-ins and writes down what it was asked.
private final class ProbeDecoder: Decoder {
    enum Observed {
        case nothing, value, object(Members), array
    }

    final class Members {
        var trees: [String: MemberTree] = [:]
    }

    var observed = Observed.nothing
    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let members: Members
        if case .object(let known) = observed {
            members = known
        } else {
            members = Members()
            observed = .object(members)
        }
        return KeyedDecodingContainer(ProbeContainer<Key>(members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        observed = .array
        return EmptyProbeList()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        if case .nothing = observed { observed = .value }
        return ProbeValue()
    }
}

extension ProbeDecoder.Observed {
    func tree(takingNull nullable: Set<String>) -> MemberTree {
        guard case .object(let members) = self else { return .any }
        return .object(Dictionary(uniqueKeysWithValues: members.trees.map { name, tree in (name, nullable.contains(name) ? .nullable(tree) : tree) }))
    }
}

private struct ProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: ProbeDecoder.Members
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    private func note(_ key: Key, _ tree: MemberTree = .any) {
        members.trees[key.stringValue] = tree
    }

    func contains(_ key: Key) -> Bool {
        if members.trees[key.stringValue] == nil { note(key) }
        return false
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        _ = contains(key)
        return true
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { note(key); return false }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { note(key); return "" }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { note(key); return 0 }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { note(key); return 0 }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { note(key); return 0 }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { note(key); return 0 }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { note(key); return 0 }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { note(key); return 0 }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { note(key); return 0 }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { note(key); return 0 }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { note(key); return 0 }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { note(key); return 0 }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { note(key); return 0 }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { note(key); return 0 }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        note(key, MemberProbe.shape(of: type))
        return try MemberProbe.standIn(for: type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        note(key, MemberProbe.shape(of: type))
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = ProbeDecoder.Members()
        defer { note(key, ProbeDecoder.Observed.object(nested).tree(takingNull: [])) }
        return KeyedDecodingContainer(ProbeContainer<NestedKey>(members: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        note(key, .array(.any))
        return EmptyProbeList()
    }

    func superDecoder() throws -> any Decoder { ProbeDecoder() }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        note(key)
        return ProbeDecoder()
    }
}

/// A list with nothing in it: the elements' shape comes from the element type (`ProbedArray`).
private struct EmptyProbeList: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    private func end() -> DecodingError {
        DecodingError.valueNotFound(Any.self, .init(codingPath: [], debugDescription: "A probe's list is empty."))
    }

    mutating func decodeNil() throws -> Bool { true }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw end() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> { throw end() }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw end() }
    mutating func superDecoder() throws -> any Decoder { throw end() }
}

/// A value's stand-in: the least of its kind (`null` where null is allowed).
private struct ProbeValue: SingleValueDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    func decodeNil() -> Bool { true }
    func decode(_ type: Bool.Type) throws -> Bool { false }
    func decode(_ type: String.Type) throws -> String { "" }
    func decode(_ type: Double.Type) throws -> Double { 0 }
    func decode(_ type: Float.Type) throws -> Float { 0 }
    func decode(_ type: Int.Type) throws -> Int { 0 }
    func decode(_ type: Int8.Type) throws -> Int8 { 0 }
    func decode(_ type: Int16.Type) throws -> Int16 { 0 }
    func decode(_ type: Int32.Type) throws -> Int32 { 0 }
    func decode(_ type: Int64.Type) throws -> Int64 { 0 }
    func decode(_ type: UInt.Type) throws -> UInt { 0 }
    func decode(_ type: UInt8.Type) throws -> UInt8 { 0 }
    func decode(_ type: UInt16.Type) throws -> UInt16 { 0 }
    func decode(_ type: UInt32.Type) throws -> UInt32 { 0 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try MemberProbe.standIn(for: type) }
}

/// An array's elements are probed from its element type.
private protocol ProbedArray {
    static var elementShape: MemberTree { get }
    static var empty: Self { get }
}

extension Array: ProbedArray where Element: Decodable {
    fileprivate static var elementShape: MemberTree { MemberProbe.shape(of: Element.self) }
    fileprivate static var empty: Self { [] }
}

/// A dictionary is a free-form object (a record's fields, a command's payload): not looked into.
private protocol FreeFormMembers {
    static var empty: Self { get }
}

extension Dictionary: FreeFormMembers {
    fileprivate static var empty: Self { [:] }
}
