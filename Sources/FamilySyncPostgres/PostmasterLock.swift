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
        guard kill(pid, 0) == 0 else { return nil }
        #if os(Linux)
        guard let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
            comm.trimmingCharacters(in: .whitespacesAndNewlines) == "postgres",
            let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
        else { return nil }
        let arguments = commandLine.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard arguments.contains(clusterDirectory) else { return nil }
        #endif
        return pid
    }
}
