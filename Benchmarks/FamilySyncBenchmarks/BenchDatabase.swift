import FamilySyncPostgres
import Foundation
import Logging

/// The database a harness measures on: the embedded PostgreSQL it starts in `directory` (fsync
/// on, as in production), or, with `FAMILYSYNC_BENCH_DATABASE_URL` set, that database, migrated
/// already (a Citus coordinator from scripts/citus, say: Benchmarks/README.md, "On Citus").
/// `FAMILYSYNC_BENCH_DATABASE_DIRS` (data directories, colon-separated: every node of a cluster)
/// names whose processes count as the database's CPU for such a URL; without it the day harness
/// reports that CPU as 0.
struct BenchDatabase {
    let url: DatabaseURL
    let embedded: EmbeddedPostgres?
    let directory: String
    /// The postmaster.pid of each PostgreSQL whose processes are the database's CPU.
    let postmasterPIDFiles: [String]

    static let urlVariable = "FAMILYSYNC_BENCH_DATABASE_URL"

    static func start(directory: String, maxConnections: Int = 100, logger: Logger) async throws -> BenchDatabase {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment[urlVariable], !given.isEmpty {
            let directories = (environment["FAMILYSYNC_BENCH_DATABASE_DIRS"] ?? "").split(separator: ":").map { "\($0)/postmaster.pid" }
            return BenchDatabase(url: try DatabaseURL(given), embedded: nil, directory: directory, postmasterPIDFiles: directories)
        }
        let embedded = EmbeddedPostgres(
            configuration: .init(dataDirectory: directory, durability: .durable, maxConnections: maxConnections), binaries: try PostgresBinaries.find(), logger: logger
        )
        let url = try await embedded.start()
        return BenchDatabase(url: url, embedded: embedded, directory: directory, postmasterPIDFiles: [directory + "/pgdata/postmaster.pid"])
    }

    func stop() async throws {
        try await embedded?.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
