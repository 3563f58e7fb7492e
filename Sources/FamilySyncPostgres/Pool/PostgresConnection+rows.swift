import FamilySyncCore
import Logging
import NIOCore
import PostgresNIO
import Tracing

extension PostgresConnection {
    /// Every row of `query`, read through PostgresNIO's future API: the one way the stores read
    /// results. The async API (`query(_:logger:) async -> PostgresRowSequence`) parks its stream
    /// between batches until the consumer asks for more, and PostgresNIO 1.33.2 traps
    /// (`RowStreamStateMachine.channelReadComplete()`) when the database closes the connection
    /// while a stream is parked so: NIO reports read-complete on EOF though no read was asked
    /// for. A dying database then took the whole server down. The future API asks for the next
    /// rows within the same read-complete and is never parked in that state
    /// (`RowStreamTrapTests` shows both). The rows are held in memory: every caller reads a
    /// bounded page.
    ///
    /// With tracing on, each statement is a span named for its first word, with its text: the
    /// statement as written, with `$n` for every value, so a span never carries a family's data.
    @discardableResult
    public func rows(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws -> [PostgresRow] {
        guard Traced.tracer != nil else {
            try checkOpen()
            let result: EventLoopFuture<PostgresQueryResult> = self.query(query, logger: logger, file: file, line: line)
            return try await result.get().rows
        }
        return try await Traced.statement(query.sql) { span in
            try self.checkOpen()
            let result: EventLoopFuture<PostgresQueryResult> = self.query(query, logger: logger, file: file, line: line)
            let rows = try await result.get().rows
            span?.attributes["db.response.returned_rows"] = rows.count
            return rows
        }
    }



    /// `TRY_AGAIN_LATER` for a connection that has closed, instead of a statement written to it,
    /// which PostgresNIO (1.33) drops unanswered. Called right before the statement is written,
    /// with nothing in between that could suspend: on the connection's own loop (as
    /// `LoopBoundPool` runs a lease's work) the write is made in the same turn of the loop, and the
    /// close, handled on that thread too, cannot come between.
    func checkOpen() throws(FamilySyncError) {
        if isClosed { throw TryAgainReason.databaseUnavailable.error }
    }

    /// A statement whose rows, if any, are not wanted.
    public func run(_ query: PostgresQuery, logger: Logger, file: String = #fileID, line: Int = #line) async throws {
        try await rows(query, logger: logger, file: file, line: line)
    }

    /// Ends a failed transaction. Not on a connection that is gone, where the server has already
    /// discarded the transaction: PostgresNIO (1.33) never answers a query written to a closed
    /// connection, so the ROLLBACK that its own `withTransaction` sends there hung the request,
    /// its pool lease and, at shutdown, the server, whenever the database went away in the
    /// middle of a transaction.
    func rollBack(after error: any Error, logger: Logger) async {
        guard !isClosed, !DatabaseErrorTranslation.isConnectionLost(error) else { return }
        try? await run("ROLLBACK", logger: logger)
    }
}

extension Sequence where Element == PostgresRow {
    /// Each row's columns as `columns`, as PostgresNIO decodes one row.
    public func decode<each Column: PostgresDecodable>(
        _ columns: (repeat each Column).Type, file: String = #fileID, line: Int = #line
    ) throws -> [(repeat each Column)] {
        try map { try $0.decode(columns, file: file, line: line) }
    }

    /// Each row's one column as `column` (PostgresNIO's variadic form does not take a tuple of one).
    public func decode<Column: PostgresDecodable>(_ column: Column.Type, file: String = #fileID, line: Int = #line) throws -> [Column] {
        try map { try $0.decode(column, file: file, line: line) }
    }
}
