import FamilySyncPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's PgBouncer in transaction mode on a free loopback port, in front of the harness's
/// embedded PostgreSQL: the way `PgBouncerTests` (Tests/familysyncTests) starts it, with a
/// generated ini. PgBouncer refuses to run as root; as root it runs as the user the embedded
/// cluster runs as (`postgres`), through setpriv.
struct BenchPgBouncer {
    let process: Process
    /// The database as reached through PgBouncer.
    let pooled: DatabaseURL
    let directory: String

    static func start(database: DatabaseURL, poolSize: Int, in directory: String) async throws -> BenchPgBouncer {
        guard case .unixSocket(let socket) = database.endpoint else { throw BenchFailure("the embedded database listens on a socket") }
        guard let binary = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BenchFailure("pgbouncer is not installed (apt-get install pgbouncer)")
        }
        let port = try freeLoopbackPort()
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
            max_client_conn = 200
            ignore_startup_parameters = extra_float_digits,options
            logfile = \(directory)/pgbouncer.log
            pidfile = \(directory)/pgbouncer.pid
            """
        try configuration.write(toFile: directory + "/pgbouncer.ini", atomically: true, encoding: .utf8)
        let process = Process()
        if geteuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=postgres", "--regid=postgres", "--init-groups", binary, directory + "/pgbouncer.ini"]
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = [directory + "/pgbouncer.ini"]
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(20)
        while !canConnect(port: port) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                process.terminate()
                throw BenchFailure("pgbouncer did not start: \((try? String(contentsOfFile: directory + "/pgbouncer.log", encoding: .utf8)) ?? "")")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        var pooled = database
        pooled.endpoint = .tcp(host: "127.0.0.1", port: port)
        return BenchPgBouncer(process: process, pooled: pooled, directory: directory)
    }

    /// SIGTERM, then SIGKILL if it is still there after five seconds.
    func stop() async {
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Whether something accepts a TCP connection on 127.0.0.1:`port`.
func canConnect(port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
