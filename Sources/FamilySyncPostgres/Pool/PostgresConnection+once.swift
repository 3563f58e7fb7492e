import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs `body` on a connection of its own, outside any pool, closed however `body` ends: for
    /// what needs one session (an advisory lock, an administrator's statement).
    public static func withConnection<Result: Sendable>(
        _ configuration: PostgresConnection.Configuration, logger: Logger, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await connect(configuration: configuration, id: 0, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
