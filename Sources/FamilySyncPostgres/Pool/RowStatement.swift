import PostgresNIO
import Tracing

/// A prepared statement whose rows the caller reads by column name, as they come.
protocol RowStatement: PostgresPreparedStatement where Row == PostgresRow {}

extension RowStatement {
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }

    /// Runs it and hands each row to `body`: as a named prepared statement, parsed and planned
    /// once per connection, or with `prepared` false as an unnamed one, parsed every time. The
    /// prepared form reads through PostgresNIO's async API, which has no future form
    /// (`PostgresConnection.rows` says why that matters): the statements run so are the poll's
    /// check and a page of changes, each result bounded by its page. A pooler
    /// in transaction mode that does not track prepared statements (PgBouncer before 1.21) hands
    /// each transaction any server connection, on which a statement prepared on another does not
    /// exist.
    func forEachRow(on connection: PostgresConnection, prepared: Bool, logger: Logger, _ body: (PostgresRow) throws -> Void) async throws {
        if prepared {
            guard Traced.tracer != nil else {
                try connection.checkOpen()
                for try await row in try await connection.execute(self, logger: logger) { try body(row) }
                return
            }
            // Its span, as `rows` makes for the others.
            try await Traced.statement(Self.sql) { span in
                var count = 0
                try connection.checkOpen()
                for try await row in try await connection.execute(self, logger: logger) {
                    count += 1
                    try body(row)
                }
                span?.attributes["db.response.returned_rows"] = count
            }
        } else {
            for row in try await connection.rows(PostgresQuery(unsafeSQL: Self.sql, binds: try makeBindings()), logger: logger) { try body(row) }
        }
    }
}
