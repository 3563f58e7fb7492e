import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cluster's `postmaster.pid`, and whether the process it names is still that cluster's postmaster.
struct PostmasterLock {
    var pid: pid_t
    var clusterDirectory: String

    init?(clusterDirectory: String) {
        guard let text = try? String(contentsOfFile: clusterDirectory + "/postmaster.pid", encoding: .utf8),
            let firstLine = text.split(separator: "\n").first,
            let pid = pid_t(firstLine.trimmingCharacters(in: .whitespaces)), pid > 0
        else { return nil }
        self.pid = pid
        self.clusterDirectory = clusterDirectory
    }

    /// The pid if it is alive and, where /proc tells, a `postgres` process started on this cluster;
    /// nil for a lock left by a dead process or one whose pid now belongs to something else.
    var livePostmasterPID: pid_t? {
        Self.isPostmaster(pid, of: clusterDirectory) ? pid : nil
    }

    /// Waits (bounded) until `pid` is no longer this cluster's postmaster. `pg_ctl stop -w` returns
    /// once the lock file is gone, which the postmaster removes just before it exits; waiting
    /// for the process itself lets "the server has exited" mean "its database has too".
    static func waitUntilGone(_ pid: pid_t, of clusterDirectory: String, timeout: Duration = .seconds(10)) async {
        let deadline = ContinuousClock.now + timeout
        while isPostmaster(pid, of: clusterDirectory), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether `pid` is alive (a zombie's empty command line does not count) and, where /proc
    /// tells, a `postgres` process started on this cluster.
    static func isPostmaster(_ pid: pid_t, of clusterDirectory: String) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        #if os(Linux)
        guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
            comm.trimmingCharacters(in: .whitespacesAndNewlines) == "postgres",
            let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
        else { return false }
        let arguments = commandLine.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return arguments.contains(clusterDirectory)
        #else
        return true
        #endif
    }
}
