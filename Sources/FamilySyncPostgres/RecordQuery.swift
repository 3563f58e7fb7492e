import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A query over one record type of a zone (PROTOCOL §5.3), checked and turned into SQL with every
/// value bound, never spliced. Field names are checked against a pattern before they are spliced.
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

    /// A field name of `fields`, or the record's own `recordName` and `modified.timestamp`.
    static func expression(_ name: String, field: String) throws(FamilySyncError) -> String {
        switch name {
        case "modified.timestamp": return "to_jsonb(modified_at)"
        case "recordName": return "to_jsonb(record_name)"
        default:
            guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) || $0 == 0x5f }) else {
                throw .badRequest("A field name is 1–64 of A–Z, a–z, 0–9 and '_' (or modified.timestamp, recordName).", field: field)
            }
            return "(fields -> '\(name)')"
        }
    }

    func sql(familyID: UUID, zoneName: String) throws(FamilySyncError) -> PostgresQuery {
        var query = PostgresQuery(unsafeSQL: "")
        var text = "FROM records WHERE family_id = $1 AND zone_name = $2 AND record_type = $3 AND NOT deleted"
        var bindings = PostgresBindings()
        bindings.append(familyID)
        bindings.append(zoneName)
        bindings.append(recordType)
        for (index, filter) in filters.enumerated() {
            let field = "filterBy[\(index)]"
            var expression = try Self.expression(filter.fieldName, field: "\(field).fieldName")
            var value = filter.value
            if filter.fieldName == "modified.timestamp", case .string(let instant) = value {
                // Normalise to PostgreSQL's own JSON rendering of a timestamptz.
                guard let date = Instant.parse(instant) else {
                    throw .badRequest("modified.timestamp is compared with an RFC 3339 instant.", field: "\(field).value")
                }
                expression = "modified_at"
                bindings.append(date)
                text += " AND \(expression) \(try Self.operator(filter.comparator, field: field)) $\(bindings.count)"
                continue
            }
            if filter.comparator == .in {
                guard case .array(let values) = value, (1...100).contains(values.count) else {
                    throw .badRequest("IN takes an array of 1–100 values.", field: "\(field).value")
                }
                try bindings.appendJSONB(value)
                text += " AND \(expression) IN (SELECT jsonb_array_elements($\(bindings.count)::jsonb))"
                continue
            }
            if case .array = value { throw .badRequest("Only IN takes an array.", field: "\(field).value") }
            if case .object = value { throw .badRequest("Values are strings, numbers, booleans or null.", field: "\(field).value") }
            if case .null = value, filter.comparator == .lessThan || filter.comparator == .greaterThan {
                throw .badRequest("null cannot be ordered.", field: "\(field).value")
            }
            value = filter.value
            try bindings.appendJSONB(value)
            text += " AND \(expression) \(try Self.operator(filter.comparator, field: field)) $\(bindings.count)::jsonb"
        }
        let keys = try sorts.enumerated().map { index, sort throws(FamilySyncError) in
            (expression: try Self.expression(sort.fieldName, field: "sortBy[\(index)].fieldName"), ascending: sort.ascending)
        }
        if let after {
            guard after.keys.count == keys.count else {
                throw .badRequest("The continuation marker belongs to another query.", field: "continuationMarker")
            }
            // After the cursor in ORDER BY's order, NULLS LAST: key by key, a later value (or null
            // after a value), or the same value and later in what follows; the name breaks ties.
            bindings.append(after.recordName)
            var condition = "record_name > $\(bindings.count)"
            // A key the record does not have is SQL NULL (null members are not stored), and the
            // cursor says so with null.
            for (key, value) in zip(keys, after.keys).reversed() {
                guard value != .null else {
                    condition = "(\(key.expression) IS NULL AND \(condition))"
                    continue
                }
                try bindings.appendJSONB(value)
                let bound = "$\(bindings.count)::jsonb"
                condition = "(\(key.expression) \(key.ascending ? ">" : "<") \(bound) OR \(key.expression) IS NULL OR (\(key.expression) = \(bound) AND \(condition)))"
            }
            text += " AND " + condition
        }
        let order = keys.map { "\($0.expression) \($0.ascending ? "ASC" : "DESC") NULLS LAST" }
        text += " ORDER BY " + (order + ["record_name"]).joined(separator: ", ")
        text += " LIMIT \(limit + 1)"
        // With each row its sort keys, for the cursor of the next page.
        query.sql = "SELECT \(RecordRow.columns)" + keys.indices.map { ", \(keys[$0].expression) AS \(Self.sortKeyColumn($0))" }.joined() + " " + text
        query.binds = bindings
        return query
    }

    static func `operator`(_ comparator: Comparator, field: String) throws(FamilySyncError) -> String {
        switch comparator {
        case .equals: "="
        case .notEquals: "IS DISTINCT FROM"
        case .lessThan: "<"
        case .greaterThan: ">"
        case .in: throw .badRequest("IN is not a binary comparison.", field: field)
        }
    }
}

extension RecordQuery {
    /// The column a row carries its `index`th sort key in, for the cursor of the next page.
    static func sortKeyColumn(_ index: Int) -> String { "sort_key_\(index)" }
}

extension PostgresRecordReads {
    /// Live records of one type matching the query, and the cursor after them when a next page exists.
    public func query(access: ZoneAccess, zoneName: String, _ query: RecordQuery) async throws -> (records: [Record], next: RecordQuery.Cursor?) {
        let familyID = access.caller.familyID
        let logger = logger
        let sql = try query.sql(familyID: familyID, zoneName: zoneName)
        return try await database.inSnapshot(logger: logger) { connection in
            try access.checkRead(try await ZoneRows.zone(familyID, zoneName, on: connection, logger: logger))
            var rows = try await connection.rows(sql, logger: logger).map { row in
                let cells = row.makeRandomAccess()
                let keys = try query.sorts.indices.map { index in
                    try cells[RecordQuery.sortKeyColumn(index)].decode(JSONB<JSONValue>?.self)?.value ?? .null
                }
                return (record: try RecordRow.decode(row), keys: keys)
            }
            let moreComing = rows.count > query.limit
            if moreComing { rows.removeLast() }
            let next = moreComing ? rows.last.map { RecordQuery.Cursor(keys: $0.keys, recordName: $0.record.recordName) } : nil
            return (rows.map(\.record), next)
        }
    }
}
