import Crypto
import Foundation
import Logging
import FamilySyncCore
import PostgresNIO

/// Server-wide secrets kept in the database, so that every instance sharing it signs change tokens
/// with the same key. Made on first use; `INSERT … ON CONFLICT DO NOTHING` lets two instances
/// starting at once agree on one.
public enum PostgresServerSecrets {
    public static func loadOrCreate(_ name: String, database: Database, logger: Logger) async throws -> SymmetricKey {
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { ByteBuffer(bytes: $0) }
        try await database.rows(
            "INSERT INTO server_secrets (name, secret) VALUES (\(name), \(fresh)) ON CONFLICT (name) DO NOTHING",
            logger: logger
        )
        let rows = try await database.rows("SELECT secret FROM server_secrets WHERE name = \(name)", logger: logger)
        guard let secret = try rows.first.map({ try $0.decode(ByteBuffer.self) }) else {
            throw FamilySyncError.internalError
        }
        return SymmetricKey(data: Array(secret.readableBytesView))
    }
}
