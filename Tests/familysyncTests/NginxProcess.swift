import FamilySyncTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Debian's nginx in front of server instances on loopback, as docs/operations.md ("Scale-out:
/// several instances on one database") configures it, its files in a directory of the test's. `route` rewrites the upstream
/// list and reloads, the way an operator takes an instance out before stopping it.
final class NginxProcess {
    let port: Int
    let directory: String
    private let process: ServerProcess

    private init(port: Int, directory: String, process: ServerProcess) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    static func start(upstreams: [Int], in parent: String) async throws -> NginxProcess {
        guard access("/usr/sbin/nginx", X_OK) == 0 else { throw TestFailure("nginx is not installed (scripts/test installs it)") }
        let directory = parent + "/nginx"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try freePort()
        try Self.configuration(port: port, upstreams: upstreams, down: [], directory: directory)
            .write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        // Not Foundation's `Process`: its `waitUntilExit` hung in these tests, the child left unreaped.
        let process = try await ServerProcess.start(
            ["-p", directory, "-c", directory + "/nginx.conf", "-e", directory + "/error.log"], executable: "/usr/sbin/nginx", workingDirectory: directory
        )
        let nginx = NginxProcess(port: port, directory: directory, process: process)
        let deadline = ContinuousClock.now + .seconds(20)
        while (try? connectedSocket(port: port)).map({ close($0) }) == nil {
            guard ContinuousClock.now < deadline else {
                await nginx.stop()
                throw TestFailure("nginx did not start: \(nginx.errorLog)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nginx
    }

    /// Proxies to `upstreams`, those in `down` marked down, from the moment this returns: the
    /// workers of the previous configuration have finished what they held and exited. (Returning
    /// once they only quit accepting, a request they still took on a kept-alive connection went
    /// to the upstream marked down as it stopped: a 502 in a full run beside a busy core.)
    func route(to upstreams: [Int], down: Set<Int>) async throws {
        try Self.configuration(port: port, upstreams: upstreams, down: down, directory: directory)
            .write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        let previous = Set(workers)
        process.signal(SIGHUP)
        // nginx starts the new workers first, then tells the old ones to quit; a quitting worker
        // closes its listening sockets at once and renames itself.
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let now = Set(workers)
            let replaced = !now.subtracting(previous).isEmpty
            if replaced && previous.isDisjoint(with: now) { return }
            guard ContinuousClock.now < deadline else { throw TestFailure("nginx did not reload: \(errorLog)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Kills nginx and its workers (a worker outlives its killed master).
    func stop() async {
        let workers = workers
        process.signal(SIGKILL)
        for worker in workers { kill(worker, SIGKILL) }
        _ = try? await process.waitForExit()
    }

    var errorLog: String {
        (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
    }

    /// Each request nginx answered: its status and the upstream that answered it (`-` if none).
    var accessLog: [(status: Int, upstream: String)] {
        let text = (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count >= 2, let status = Int(parts[0]) else { return nil }
            return (status, String(parts[1]))
        }
    }

    private var workers: [pid_t] {
        let pid = process.pid
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0) }
    }

    /// deploy/nginx.conf's proxying, with this test's ports and paths.
    private static func configuration(port: Int, upstreams: [Int], down: Set<Int>, directory: String) throws -> String {
        let servers = upstreams.map { "        server 127.0.0.1:\($0)\(down.contains($0) ? " down" : "");" }.joined(separator: "\n")
        return """
            daemon off;
            \(geteuid() == 0 ? "user root root;" : "")
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 4096; }
            http {
                log_format topology '$status $upstream_addr';
                access_log \(directory)/access.log topology;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                upstream familysync {
            \(servers)
                }
                server {
                    listen 127.0.0.1:\(port);
            \(try proxyDirectives())
                }
            }
            """
    }

    /// deploy/nginx.conf's `location /` block: the topology test proxies exactly as it does.
    static func proxyDirectives() throws -> String {
        let text = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("deploy/nginx.conf"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains("location / {") }),
            let end = lines[start...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "}" })
        else { throw TestFailure("deploy/nginx.conf has no `location / { … }` block") }
        return lines[start...end].joined(separator: "\n")
    }
}
