import PostgresNIO

/// A prepared statement whose rows the caller reads by column name, as they come.
protocol RowStatement: PostgresPreparedStatement where Row == PostgresRow {}

extension RowStatement {
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
