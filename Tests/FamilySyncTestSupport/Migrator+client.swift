import FamilySyncPostgres
import PostgresNIO

extension Migrator {
    /// Applies what is missing on one connection of a test's client.
    @discardableResult
    public func migrate(client: PostgresClient) async throws -> [Int] {
        try await client.withConnection { connection in try await migrate(connection: connection) }
    }

    public func appliedVersion(client: PostgresClient) async throws -> Int? {
        try await client.withConnection { connection in try await appliedVersion(on: connection) }
    }
}
