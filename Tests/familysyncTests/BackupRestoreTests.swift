import FamilySyncClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Subprocess
import SystemPackage
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ReliabilitySuites {
    /// The restore drill of docs/operations.md ("Backups"), as an operator runs it: `pg_dump` of a
    /// live server's database, `pg_restore` into an empty one, a server on the copy. Devices keep
    /// their credentials and their change tokens: nothing to pair again, nothing to fetch again.
    @Suite(.notOnCitus("pg_dump and pg_restore of one PostgreSQL; a Citus cluster is backed up node by node (docs/operations.md)"))
    struct BackupRestoreTests {
        /// Runs one of PostgreSQL's client programs against the test cluster's socket.
        static func run(_ program: String, _ arguments: [String], on url: DatabaseURL) async throws {
            guard case .unixSocket(let path) = url.endpoint else { throw TestFailure("the test cluster listens on a socket") }
            let directory = (path as NSString).deletingLastPathComponent
            let port = String(path.split(separator: ".").last ?? "5432")
            let result = try await Subprocess.run(
                .path(FilePath(try PostgresBinaries.find().directory + "/" + program)),
                arguments: Arguments(["-h", directory, "-p", port, "-U", url.username] + arguments),
                output: .string(limit: 1 << 20), error: .string(limit: 1 << 20)
            )
            guard case .exited(0) = result.terminationStatus else {
                throw TestFailure("\(program) failed: \(result.standardError ?? "")")
            }
        }

        /// A server process on `database`, ready; the caller kills it.
        static func serve(_ database: DatabaseURL, in directory: String) async throws -> ServerProcess {
            let port = try freePort()
            let server = try await ServerProcess.start(
                ["serve", "--port", "\(port)", "--usage-retention-days", "36500"], port: port,
                environment: ["DATABASE_URL": database.connectionString], workingDirectory: directory
            )
            do {
                try await server.waitUntilReady()
            } catch {
                server.signal(SIGKILL)
                throw error
            }
            return server
        }

        /// `dump` restored into an empty database beside `original`'s.
        static func restore(_ dump: String, beside original: DatabaseURL) async throws -> DatabaseURL {
            let embedded = try await TestPostgres.shared.embedded()
            var restored = original
            restored.database = original.database + "_restored"
            try await embedded.createDatabaseIfMissing(restored.database, template: "template0")
            try await run("pg_restore", ["-d", restored.database, "--no-owner", "--exit-on-error", dump], on: restored)
            return restored
        }

        @Test func aDumpRestoredIntoAnEmptyDatabaseServesTheSameFamily() async throws {
            try await withTemporaryDirectory { directory in
                let original = try await TestPostgres.shared.makeDatabase()
                let server = try await Self.serve(original, in: directory)
                defer { server.signal(SIGKILL) }
                let family = try await PairedFamily.create(on: server.client)
                let child = family.children[0]
                _ = try await family.parent.modify(child.zone, .appConfiguration("app-1", .create))
                let base = Date(timeIntervalSince1970: 1_790_000_000)
                _ = try await child.client.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: (0..<5).map { UsageRecordBody.second($0, after: base, app: $0 % 2) }))
                let zone = try await family.parent.zoneChanges(child.zone, since: nil)
                let token = try await child.client.databaseChanges(since: nil).changeToken

                // The backup, taken while the server runs (pg_dump reads one snapshot).
                let dump = directory + "/familysync.dump"
                try await Self.run("pg_dump", ["-d", original.database, "-Fc", "-f", dump], on: original)
                server.signal(SIGTERM)
                _ = try await server.waitForExit()

                let restored = try await Self.restore(dump, beside: original)
                let copy = try await Self.serve(restored, in: directory)
                defer { copy.signal(SIGKILL) }
                let parent = copy.client.authenticated(as: try #require(family.parent.credential))
                let kid = copy.client.authenticated(as: try #require(child.client.credential))
                #expect(try await kid.me().status == .active, "the child's credential works on the copy")
                let again = try await parent.zoneChanges(child.zone, since: nil)
                #expect(again.records == zone.records)
                // The change token from before the backup is still good: nothing to fetch again.
                let since = try await kid.databaseChanges(since: token)
                #expect(since.zones.isEmpty)
                let summaries = try await parent.zoneChanges(child.zone, since: nil).records.filter { $0.recordType == "DailySummary" }
                #expect(summaries.count == zone.records.filter { $0.recordType == "DailySummary" }.count)
                // And it takes writes: the sequence continues where the original's stopped.
                let wrote = try await parent.modify(child.zone, ModifyRecordsRequest(operations: [
                    .init(operationType: .forceDelete, record: .init(recordName: "app-1")),
                ]))
                #expect(wrote.records.count == 1)
                #expect(try await kid.databaseChanges(since: token).zones.map(\.zoneName) == [child.zone])
            }
        }

        /// An older backup: devices hold tokens from after it. `familysync expire-change-tokens` on the
        /// restored database refuses them (410) for good, also once new writes have numbered past them.
        @Test func anOlderBackupRestoredRefusesEveryTokenFromBefore() async throws {
            try await withTemporaryDirectory { directory in
                let original = try await TestPostgres.shared.makeDatabase()
                let server = try await Self.serve(original, in: directory)
                defer { server.signal(SIGKILL) }
                let family = try await PairedFamily.create(on: server.client)
                let child = family.children[0]
                let dump = directory + "/older.dump"
                try await Self.run("pg_dump", ["-d", original.database, "-Fc", "-f", dump], on: original)
                // After the backup: three writes, and the child's token past them.
                for index in 0..<3 { _ = try await family.parent.modify(child.zone, .appConfiguration("after-\(index)")) }
                let ahead = try await child.client.databaseChanges(since: nil).changeToken
                let zoneAhead = try await child.client.zoneChanges(child.zone, since: nil).changeToken
                server.signal(SIGTERM)
                _ = try await server.waitForExit()

                let restored = try await Self.restore(dump, beside: original)
                let fence = try await ServerProcess.start(["expire-change-tokens"], environment: ["DATABASE_URL": restored.connectionString], workingDirectory: directory)
                #expect(try await fence.waitForExit() == .exited(0), "\(fence.stderr)")
                #expect(fence.stdout.hasPrefix("1 family: every change token handed out before now answers 410"), "\(fence.stdout)")

                let copy = try await Self.serve(restored, in: directory)
                defer { copy.signal(SIGKILL) }
                let parent = copy.client.authenticated(as: try #require(family.parent.credential))
                let kid = copy.client.authenticated(as: try #require(child.client.credential))
                // More writes than were lost: without the fence the sequence would now pass `ahead`.
                for index in 0..<5 { _ = try await parent.modify(child.zone, .appConfiguration("restored-\(index)")) }
                do {
                    _ = try await kid.databaseChanges(since: ahead)
                    Issue.record("the database token from after the backup was taken")
                } catch {
                    #expect((error as? FamilySyncError)?.code == .changeTokenExpired, "\(error)")
                }
                do {
                    _ = try await kid.zoneChanges(child.zone, since: zoneAhead)
                    Issue.record("the zone token from after the backup was taken")
                } catch {
                    #expect((error as? FamilySyncError)?.code == .changeTokenExpired, "\(error)")
                }
                // Fetched whole, the zone is the restored one and what came after.
                let whole = try await kid.zoneChanges(child.zone, since: nil)
                #expect(Set(whole.records.map(\.recordName)).isSuperset(of: (0..<5).map { "restored-\($0)" }))
                #expect(!whole.records.contains { $0.recordName.hasPrefix("after-") })
                // And the tokens handed out now work as ever.
                let fresh = try await kid.databaseChanges(since: nil).changeToken
                #expect(try await kid.databaseChanges(since: fresh).zones.isEmpty)
                #expect(try await kid.zoneChanges(child.zone, since: whole.changeToken).records.isEmpty)
            }
        }
    }
}
