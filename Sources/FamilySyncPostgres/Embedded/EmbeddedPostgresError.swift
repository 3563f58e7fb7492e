/// Why the embedded database could not be prepared, started or stopped. Each reads as one line.
public enum EmbeddedPostgresError: Error, Equatable, CustomStringConvertible {
    case binariesNotFound(searched: [String])
    case dataDirectoryNotWritable(path: String, reason: String)
    case unreachableByPostgresUser(path: String)
    case postgresUserMissing
    case setprivMissing
    case notACluster(path: String)
    case commandFailed(command: String, status: String, output: String)

    /// True when the fix is in the operator's hands (configuration or installation), not a fault at run time.
    public var isConfigurationProblem: Bool {
        switch self {
        case .commandFailed: false
        default: true
        }
    }

    public var description: String {
        switch self {
        case .binariesNotFound:
            "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in PATH or /usr/lib/postgresql/*/bin; install them with: \(PostgresBinaries.installHint)"
        case .dataDirectoryNotWritable(let path, let reason):
            "data directory \(path) is not writable: \(reason)"
        case .unreachableByPostgresUser(let path):
            "the postgres system user cannot reach \(path) (a parent directory is not searchable by others); choose a --data-dir it can reach, such as /var/lib/familysync"
        case .postgresUserMissing:
            "running as root needs the unprivileged 'postgres' system user to run the database; install it with: \(PostgresBinaries.installHint)"
        case .setprivMissing:
            "running as root needs setpriv (from util-linux) to run the database as the postgres user; install it with: apt-get install -y util-linux"
        case .notACluster(let path):
            "\(path) exists but is not a PostgreSQL data directory; empty it or choose another --data-dir"
        case .commandFailed(let command, let status, let output):
            "\(command) failed (\(status)): \(output.split(separator: "\n").suffix(3).joined(separator: " / "))"
        }
    }
}
