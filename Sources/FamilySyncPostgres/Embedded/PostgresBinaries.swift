import Foundation

/// The PostgreSQL server programs the embedded database needs: `initdb`, `pg_ctl` and `postgres`.
public struct PostgresBinaries: Sendable, Equatable {
    public var directory: String

    public var initdb: String { directory + "/initdb" }
    public var pgCtl: String { directory + "/pg_ctl" }
    public var postgres: String { directory + "/postgres" }

    /// The command a person runs on Debian to get the binaries.
    public static let installHint = "apt-get update && apt-get install -y postgresql"

    /// Looks in `PATH` first, then in Debian's `/usr/lib/postgresql/<major>/bin`, newest major first.
    public static func find(
        path: String? = ProcessInfo.processInfo.environment["PATH"],
        debianRoot: String = "/usr/lib/postgresql"
    ) throws(EmbeddedPostgresError) -> PostgresBinaries {
        var candidates = (path ?? "").split(separator: ":").map(String.init)
        let majors = (try? FileManager.default.contentsOfDirectory(atPath: debianRoot)) ?? []
        candidates += majors.compactMap(Int.init).sorted(by: >).map { "\(debianRoot)/\($0)/bin" }
        for directory in candidates where isComplete(directory) {
            // PATH often holds symlinks (/usr/local/bin/pg_ctl → /usr/lib/postgresql/15/bin/pg_ctl);
            // pg_ctl finds `postgres` beside its own real path, so use the directory of that.
            let resolved = (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/pg_ctl"))
                .map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: directory + "/")).deletingLastPathComponent().path }
            if let resolved, isComplete(resolved) {
                return PostgresBinaries(directory: resolved)
            }
            return PostgresBinaries(directory: directory)
        }
        throw .binariesNotFound(searched: candidates)
    }

    private static func isComplete(_ directory: String) -> Bool {
        ["initdb", "pg_ctl", "postgres"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: directory + "/" + $0)
        }
    }
}
