import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

extension LockedFamily {
    /// The family's own retention settings (§15.1), as this transaction sees them.
    func retentionSettings() async throws -> RetentionSettings {
        try await connection.rows(PostgresRetention.select(id), logger: logger).first.map(PostgresRetention.decode) ?? RetentionSettings()
    }
}
