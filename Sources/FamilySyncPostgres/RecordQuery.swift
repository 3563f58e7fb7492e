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

    public var recordType: String
    public var filters: [Filter]
    public var sorts: [(fieldName: String, ascending: Bool)]
    public var limit: Int
    public var offset: Int

    public init(recordType: String, filters: [Filter], sorts: [(fieldName: String, ascending: Bool)], limit: Int, offset: Int) {
        self.recordType = recordType
        self.filters = filters
        self.sorts = sorts
        self.limit = limit
        self.offset = offset
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
        var text = "SELECT \(RecordRow.columns) FROM records WHERE family_id = $1 AND zone_name = $2 AND record_type = $3 AND NOT deleted"
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
                bindings.append(try RecordRow.jsonText(value))
                text += " AND \(expression) IN (SELECT jsonb_array_elements($\(bindings.count)::jsonb))"
                continue
            }
            if case .array = value { throw .badRequest("Only IN takes an array.", field: "\(field).value") }
            if case .object = value { throw .badRequest("Values are strings, numbers, booleans or null.", field: "\(field).value") }
            if case .null = value, filter.comparator == .lessThan || filter.comparator == .greaterThan {
                throw .badRequest("null cannot be ordered.", field: "\(field).value")
            }
            value = filter.value
            bindings.append(try RecordRow.jsonText(value))
            text += " AND \(expression) \(try Self.operator(filter.comparator, field: field)) $\(bindings.count)::jsonb"
        }
        let order = try sorts.enumerated().map { index, sort throws(FamilySyncError) in
            "\(try Self.expression(sort.fieldName, field: "sortBy[\(index)].fieldName")) \(sort.ascending ? "ASC" : "DESC") NULLS LAST"
        }
        text += " ORDER BY " + (order + ["record_name"]).joined(separator: ", ")
        text += " LIMIT \(limit + 1) OFFSET \(offset)"
        query.sql = text
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

extension RecordRow {
    static func jsonText(_ value: JSONValue) throws(FamilySyncError) -> String {
        guard let data = try? JSONEncoder().encode(value) else { throw .badRequest("The value cannot be encoded.") }
        return String(decoding: data, as: UTF8.self)
    }
}

extension PostgresRecordStore {
    /// Live records of one type matching the query; `moreComing` when a next page exists.
    public func query(access: ZoneAccess, zoneName: String, _ query: RecordQuery) async throws -> (records: [Record], moreComing: Bool) {
        let familyID = access.caller.familyID
        let logger = logger
        let sql = try query.sql(familyID: familyID, zoneName: zoneName)
        return try await client.inSnapshot(logger: logger) { connection in
            let zone = try await ZoneRows.zone(familyID, zoneName, on: connection, logger: logger)
            guard access.canRead(zone: zone.name, childDeviceID: zone.childDeviceID) else {
                throw FamilySyncError(.zoneNotFound, "No such zone.")
            }
            var records = try await connection.query(sql, logger: logger).collect(RecordRow.decode)
            let moreComing = records.count > query.limit
            if moreComing { records.removeLast() }
            return (records, moreComing)
        }
    }
}
