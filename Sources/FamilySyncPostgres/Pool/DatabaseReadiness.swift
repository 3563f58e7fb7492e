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
        let (database, migrator, timeout) = (database, migrator, timeout)
        let applied: Int?
        do {
            // Through a lease of the serving pool, with its watchdog: a statement written to a
            // connection that was closing as the database died is never answered, and a probe
            // that waited for it held its lease, so the server's next stop never ended. The
            // deadline does not wait for the read either.
            applied = try await SingleOutcome<Int?>.race({
                try await database.leasing(within: timeout) { connection in try await migrator.appliedVersion(on: connection) }
            }, cancellingBodyWhenWatchWins: true) { resolve in
                do { try await TimerSleep.sleep(for: timeout) } catch { return }
                resolve(.failure(FamilySyncError.unavailable("The database did not answer in time.")))
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
