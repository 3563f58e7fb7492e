import Foundation

/// A query over one record type of a zone (PROTOCOL §5.3) and its rules: its size, which field
/// names and values it may hold, and where a page ended. `checked()` gives the form a store turns
/// into a statement with nothing left to refuse.
public struct RecordQuery: Sendable {
    public enum Comparator: String, Sendable { case equals, notEquals, lessThan, greaterThan, `in` }

    public struct Filter: Sendable {
        public var fieldName: String
        public var comparator: Comparator
        public var value: JSONValue
        public init(fieldName: String, comparator: Comparator, value: JSONValue) {
            self.fieldName = fieldName
            self.comparator = comparator
            self.value = value
        }
    }

    /// Where a page ended: the last record's sort keys (as JSON, null where it has none) and its
    /// name. The next page starts after it in the query's order (keyset paging): a write between
    /// pages neither skips a record nor shows one twice, as an offset would.
    public struct Cursor: Sendable, Equatable, Codable {
        public var keys: [JSONValue]
        public var recordName: String

        public init(keys: [JSONValue], recordName: String) {
            self.keys = keys
            self.recordName = recordName
        }

        /// The `continuationMarker` a client is given: opaque to it.
        public var marker: String {
            get throws { try JSONEncoder().encode(self).base64EncodedString() }
        }

        /// A marker the client sent back; 400 naming `continuationMarker` when it is not one.
        public init(marker: String) throws(FamilySyncError) {
            guard let data = Data(base64Encoded: marker), let cursor = try? JSONDecoder().decode(Cursor.self, from: data) else {
                throw .badRequest("The continuation marker is not valid.", field: "continuationMarker")
            }
            self = cursor
        }
    }

    public var recordType: String
    public var filters: [Filter]
    public var sorts: [(fieldName: String, ascending: Bool)]
    public var limit: Int
    public var after: Cursor?

    public init(recordType: String, filters: [Filter], sorts: [(fieldName: String, ascending: Bool)], limit: Int, after: Cursor?) {
        self.recordType = recordType
        self.filters = filters
        self.sorts = sorts
        self.limit = limit
        self.after = after
    }

    /// A client's query with its page size (`Limits.defaultPageSize` when none), its counts of
    /// filters and sorts held to §14's limits, and its continuation marker read.
    public init(
        recordType: String, filters: [Filter], sorts: [(fieldName: String, ascending: Bool)], resultsLimit: Int?, continuationMarker: String?
    ) throws(FamilySyncError) {
        let limit = resultsLimit ?? Limits.defaultPageSize
        guard Limits.pageSizes.contains(limit) else {
            throw .badRequest("resultsLimit must be from \(Limits.pageSizes.lowerBound) to \(Limits.pageSizes.upperBound).", field: "resultsLimit")
        }
        guard filters.count <= Limits.maximumQueryFilters, sorts.count <= Limits.maximumQuerySorts else {
            throw .badRequest("At most \(Limits.maximumQueryFilters) filters and \(Limits.maximumQuerySorts) sort fields.", field: "filterBy")
        }
        let after = try continuationMarker.map { marker throws(FamilySyncError) in try Cursor(marker: marker) }
        self.init(recordType: recordType, filters: filters, sorts: sorts, limit: limit, after: after)
    }
}

extension RecordQuery {
    /// A query with nothing left to refuse: what a store turns into SQL.
    public struct Checked: Sendable {
        /// What a filter or a sort reads: a member of `fields`, or the record's own name and
        /// modification instant.
        public enum Key: Sendable, Equatable {
            case modifiedTimestamp
            case recordName
            /// 1–64 of A–Z, a–z, 0–9 and `_`: safe to name in a statement.
            case field(String)
        }

        /// The comparators that compare two values.
        public enum Binary: String, Sendable { case equals, notEquals, lessThan, greaterThan }

        public enum Condition: Sendable, Equatable {
            /// `modified.timestamp` against an instant (compared as instants, not as JSON text).
            case modifiedAt(Binary, Date)
            /// The key's value is one of 1–100 values (an array).
            case among(Key, JSONValue)
            /// The key's value against a string, number, boolean or null; null is not ordered.
            case compare(Key, Binary, JSONValue)
        }

        public var recordType: String
        public var conditions: [Condition]
        public var sorts: [(key: Key, ascending: Bool)]
        public var limit: Int
        public var after: Cursor?
    }

    /// The query's filters and sorts checked in order; the first fault is a 400 naming its member.
    public func checked() throws(FamilySyncError) -> Checked {
        var conditions: [Checked.Condition] = []
        for (index, filter) in filters.enumerated() {
            let field = "filterBy[\(index)]"
            let key = try Self.key(filter.fieldName, field: "\(field).fieldName")
            if key == .modifiedTimestamp, case .string(let instant) = filter.value {
                guard let date = Instant.parse(instant) else {
                    throw .badRequest("modified.timestamp is compared with an RFC 3339 instant.", field: "\(field).value")
                }
                conditions.append(.modifiedAt(try Self.binary(filter.comparator, field: field), date))
                continue
            }
            if filter.comparator == .in {
                guard case .array(let values) = filter.value, (1...100).contains(values.count) else {
                    throw .badRequest("IN takes an array of 1–100 values.", field: "\(field).value")
                }
                conditions.append(.among(key, filter.value))
                continue
            }
            if case .array = filter.value { throw .badRequest("Only IN takes an array.", field: "\(field).value") }
            if case .object = filter.value { throw .badRequest("Values are strings, numbers, booleans or null.", field: "\(field).value") }
            if case .null = filter.value, filter.comparator == .lessThan || filter.comparator == .greaterThan {
                throw .badRequest("null cannot be ordered.", field: "\(field).value")
            }
            conditions.append(.compare(key, try Self.binary(filter.comparator, field: field), filter.value))
        }
        let keys = try sorts.enumerated().map { index, sort throws(FamilySyncError) in
            (key: try Self.key(sort.fieldName, field: "sortBy[\(index)].fieldName"), ascending: sort.ascending)
        }
        if let after, after.keys.count != keys.count {
            throw .badRequest("The continuation marker belongs to another query.", field: "continuationMarker")
        }
        return Checked(recordType: recordType, conditions: conditions, sorts: keys, limit: limit, after: after)
    }

    /// A field name of `fields`, or the record's own `recordName` and `modified.timestamp`.
    static func key(_ name: String, field: String) throws(FamilySyncError) -> Checked.Key {
        switch name {
        case "modified.timestamp": return .modifiedTimestamp
        case "recordName": return .recordName
        default:
            guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) || $0 == 0x5f }) else {
                throw .badRequest("A field name is 1–64 of A–Z, a–z, 0–9 and '_' (or modified.timestamp, recordName).", field: field)
            }
            return .field(name)
        }
    }

    static func binary(_ comparator: Comparator, field: String) throws(FamilySyncError) -> Checked.Binary {
        guard let binary = Checked.Binary(rawValue: comparator.rawValue) else { throw .badRequest("IN is not a binary comparison.", field: field) }
        return binary
    }
}
