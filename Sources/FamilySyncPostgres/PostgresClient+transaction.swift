import FamilySyncCore
import Logging
import PostgresNIO

extension PostgresClient {
    /// One request's transaction. Domain errors thrown inside come out as themselves (PostgresNIO
    /// wraps them), database failures as `TRY_AGAIN_LATER` where they are transient, and
    /// anything else unchanged, for the HTTP layer to answer 500.
    @discardableResult
    public func inTransaction<Result: Sendable>(
        logger: Logger,
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await withTransaction(logger: logger) { connection in
                try await body(connection)
            }
        } catch let error as PostgresTransactionError {
            let underlying = error.closureError ?? error.beginError ?? error.commitError ?? error
            if let domain = underlying as? FamilySyncError { throw domain }
            throw DatabaseErrorTranslation.translate(underlying) ?? underlying
        }
    }
}

extension PostgresRowSequence {
    /// The rows of a query as values, decoded by `transform`.
    func collect<Value>(_ transform: (PostgresRow) throws -> Value) async throws -> [Value] {
        var values: [Value] = []
        for try await row in self { values.append(try transform(row)) }
        return values
    }
}

extension PostgresClient {
    /// A read-only transaction over one snapshot (REPEATABLE READ): every query of `body` sees the
    /// same committed state, so a change token read with the rows covers exactly those rows.
    public func inSnapshot<Result: Sendable>(
        logger: Logger,
        _ body: @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await withConnection { connection in
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                do {
                    let result = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return result
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        } catch let error as FamilySyncError {
            throw error
        } catch {
            throw DatabaseErrorTranslation.translate(error) ?? error
        }
    }
}
