import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

/// A checked query (PROTOCOL §5.3, `RecordQuery.checked()` in Core) as SQL, every value bound,
/// never spliced; a field name is spliced only as Core's check let it through.
extension RecordQuery {
    func sql(familyID: UUID, zoneName: String) throws(FamilySyncError) -> PostgresQuery {
        let checked = try checked()
        var query = PostgresQuery(unsafeSQL: "")
        var text = "FROM records WHERE family_id = $1 AND zone_name = $2 AND record_type = $3 AND NOT deleted"
        var bindings = PostgresBindings()
        bindings.append(familyID)
        bindings.append(zoneName)
        bindings.append(checked.recordType)
        for condition in checked.conditions {
            switch condition {
            case .modifiedAt(let comparator, let date):
                bindings.append(date)
                text += " AND modified_at \(Self.sqlOperator(comparator)) $\(bindings.count)"
            case .among(let key, let values):
                try bindings.appendJSONB(values)
                text += " AND \(Self.expression(key)) IN (SELECT jsonb_array_elements($\(bindings.count)::jsonb))"
            case .compare(let key, let comparator, let value):
                try bindings.appendJSONB(value)
                text += " AND \(Self.expression(key)) \(Self.sqlOperator(comparator)) $\(bindings.count)::jsonb"
            }
        }
        let keys = checked.sorts.map { (expression: Self.expression($0.key), ascending: $0.ascending) }
        if let after = checked.after {
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
        text += " LIMIT \(checked.limit + 1)"
        // With each row its sort keys, for the cursor of the next page.
        query.sql = "SELECT \(RecordRow.columns)" + keys.indices.map { ", \(keys[$0].expression) AS \(Self.sortKeyColumn($0))" }.joined() + " " + text
        query.binds = bindings
        return query
    }

    /// The JSON a key reads, as SQL.
    static func expression(_ key: Checked.Key) -> String {
        switch key {
        case .modifiedTimestamp: "to_jsonb(modified_at)"
        case .recordName: "to_jsonb(record_name)"
        case .field(let name): "(fields -> '\(name)')"
        }
    }

    static func sqlOperator(_ comparator: Checked.Binary) -> String {
        switch comparator {
        case .equals: "="
        case .notEquals: "IS DISTINCT FROM"
        case .lessThan: "<"
        case .greaterThan: ">"
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
