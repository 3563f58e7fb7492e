import FamilySyncCore
import Foundation
import Logging
import PostgresNIO

extension LockedFamily {
    /// The family's own retention settings (§15.1), as this transaction sees them.
    func retentionSettings() async throws -> RetentionSettings {
        let rows = try await connection.rows(
            "SELECT \(unescaped: PostgresRetention.columns.map(\.column).joined(separator: ", ")) FROM family_retention WHERE family_id = \(id)",
            logger: logger
        )
        return try rows.first.map(PostgresRetention.decode) ?? RetentionSettings()
    }
}
