import FamilySyncCore
import FamilySyncPostgres
import Foundation
import Logging
import PostgresNIO
import Prometheus

/// The database as this instance sees it, on `/metrics` (docs/operations.md, "Alerts and what to
/// do"): the pool's use, sampled at each scrape, and what a check every 15 s finds (whether the
/// database answers, when PostgreSQL started, how many migrations it lacks).
package struct DatabaseMetrics: Sendable {
    let leased: Gauge
    let maximum: Gauge
    let up: Gauge
    /// `pg_postmaster_start_time()` as Unix seconds: a change is a restart of the database.
    let startTime: Gauge
    let migrationsPending: Gauge

    package init(registry: PrometheusCollectorRegistry, poolSize: Int) {
        leased = registry.makeGauge(name: "familysync_database_connections_leased", help: "Connections of the pool this instance's requests hold now.")
        maximum = registry.makeGauge(name: "familysync_database_connections_max", help: "The most connections this instance's pool opens (--db-connections).")
        up = registry.makeGauge(name: "familysync_database_up", help: "1 when this instance's last check (every 15 s) reached the database.")
        startTime = registry.makeGauge(name: "familysync_database_start_time_seconds", help: "When PostgreSQL last started, in Unix seconds.")
        migrationsPending = registry.makeGauge(name: "familysync_migrations_pending", help: "Migrations this binary has that the database has not applied.")
        maximum.set(Double(poolSize))
    }

    /// At each scrape: what the pool holds now.
    func sample(_ database: Database) {
        leased.set(Double(database.leasedConnections))
    }

    /// The 15-second check, through the pool with a short lease wait: a database that is away
    /// leaves `up` at 0 and the last start time and pending count as they were.
    package func check(_ database: Database, migrator: Migrator, logger: Logger) async throws -> Int {
        do {
            let (started, applied) = try await database.leasing(within: .seconds(2)) { connection in
                let started = try await connection.rows("SELECT extract(epoch FROM pg_postmaster_start_time())::float8", logger: logger)
                    .decode(Double.self).first ?? 0
                return (started, try await migrator.appliedVersion(on: connection) ?? 0)
            }
            up.set(1.0)
            startTime.set(started)
            migrationsPending.set(Double(max(0, migrator.latestVersion - applied)))
            return 0
        } catch {
            // A pool this instance's requests fill is not a database that is away: the check
            // says nothing then (the shed 503s and the pool's gauges say it).
            if (error as? FamilySyncError).flatMap(TryAgainReason.init) != .poolExhausted { up.set(0.0) }
            throw error
        }
    }
}
