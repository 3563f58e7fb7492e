import FamilySyncCore
import Logging
import PostgresNIO

/// Whether the database answers and carries every migration this binary knows, within a deadline:
/// a pool whose database is gone would otherwise make a readiness probe wait for its connect timeout.
public struct DatabaseReadiness: Sendable {
    let database: Database
    let migrator: Migrator
    let timeout: Duration

    public init(database: Database, migrator: Migrator, timeout: Duration = .seconds(2)) {
        self.database = database
        self.migrator = migrator
        self.timeout = timeout
    }

    /// The applied schema version when ready; `TRY_AGAIN_LATER` otherwise.
    public func check() async throws(FamilySyncError) -> Int {
        let expected = migrator.latestVersion
        let applied: Int?
        do {
            applied = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask { try await migrator.appliedVersion(client: database.client) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw FamilySyncError.unavailable("The database did not answer in time.")
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        } catch let error as FamilySyncError {
            throw error
        } catch {
            throw DatabaseErrorTranslation.translate(error) ?? TryAgainReason.databaseUnavailable.error
        }
        guard let applied, applied >= expected else {
            throw .unavailable("The database schema is at version \(applied ?? 0); this server needs \(expected).")
        }
        return applied
    }
}
