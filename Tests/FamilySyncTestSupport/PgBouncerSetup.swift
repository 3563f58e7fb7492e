import FamilySyncPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's PgBouncer in transaction mode on a free loopback port, in front of an embedded
/// cluster's socket: its ini, written into `directory`, and the command that runs it. PgBouncer
/// refuses to run as root; as root it runs as the user the cluster runs as (`postgres`), through
/// setpriv. `PgBouncerTests` and `familysync-bench neighbours` start it with their own process
/// runners.
public struct PgBouncerSetup: Sendable {
    public let port: Int
    /// The database as reached through PgBouncer.
    public let pooled: DatabaseURL
    public let executable: String
    public let arguments: [String]
    public let logFile: String

    public init(database: DatabaseURL, poolSize: Int, maxClients: Int, in directory: String) throws {
        guard case .unixSocket(let socket) = database.endpoint else { throw TestFailure("the embedded cluster listens on a socket") }
        guard let binary = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].first(where: { (path: String) in access(path, X_OK) == 0 }) else {
            throw TestFailure("pgbouncer is not installed (scripts/test installs it)")
        }
        port = try freePort()
        logFile = directory + "/pgbouncer.log"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        chmod(directory, 0o777)
        let configuration = """
            [databases]
            * = host=\((socket as NSString).deletingLastPathComponent) port=\(socket.split(separator: ".").last ?? "5432") user=\(database.username)
            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = any
            pool_mode = transaction
            default_pool_size = \(poolSize)
            max_client_conn = \(maxClients)
            ignore_startup_parameters = extra_float_digits,options
            logfile = \(logFile)
            pidfile = \(directory)/pgbouncer.pid
            """
        let ini = directory + "/pgbouncer.ini"
        try configuration.write(toFile: ini, atomically: true, encoding: .utf8)
        (executable, arguments) = geteuid() == 0
            ? ("/usr/bin/setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", binary, ini])
            : (binary, [ini])
        var pooled = database
        pooled.endpoint = .tcp(host: "127.0.0.1", port: port)
        self.pooled = pooled
    }

    /// Waits until PgBouncer accepts connections; `running` says whether its process is still there.
    public func waitUntilListening(running: () -> Bool = { true }) async throws {
        try await OpenWaits.during("PgBouncer listening on port \(port)", limit: .seconds(20)) {
            let deadline = ContinuousClock.now + .seconds(20)
            while (try? connectedSocket(port: port)).map({ close($0) }) == nil {
                guard ContinuousClock.now < deadline, running() else {
                    throw TestFailure("pgbouncer did not start: \((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "")")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}
