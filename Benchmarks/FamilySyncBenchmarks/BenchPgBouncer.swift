import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// PgBouncer in front of the harness's embedded PostgreSQL, as `PgBouncerTests` runs it
/// (`PgBouncerSetup`), under Foundation's `Process`.
struct BenchPgBouncer {
    let process: Process
    /// The database as reached through PgBouncer.
    let pooled: DatabaseURL
    let directory: String

    static func start(database: DatabaseURL, poolSize: Int, in directory: String) async throws -> BenchPgBouncer {
        let setup = try PgBouncerSetup(database: database, poolSize: poolSize, maxClients: 200, in: directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setup.executable)
        process.arguments = setup.arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            try await setup.waitUntilListening { process.isRunning }
        } catch {
            process.terminate()
            throw error
        }
        return BenchPgBouncer(process: process, pooled: setup.pooled, directory: directory)
    }

    /// SIGTERM, then SIGKILL if it is still there after five seconds.
    func stop() async {
        await process.stopGently()
    }
}
