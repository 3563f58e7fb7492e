import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations the embedded database needs, with errors as one-line reasons
/// (`Not a directory`), which Foundation's errors are not.
enum FileSystem {
    struct Failure: Error {
        var reason: String
    }

    static func lastError() -> Failure {
        Failure(reason: String(cString: strerror(errno)))
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(Failure) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0, errno != EEXIST {
                throw lastError()
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw lastError() }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw Failure(reason: "not a directory") }
    }

    /// Proves a directory is writable by creating and removing a file in it; `access(2)` cannot,
    /// since it says yes to root on a read-only file system.
    static func checkWritable(_ directory: String) throws(Failure) {
        let probe = directory + "/.write-probe-\(getpid())"
        let descriptor = open(probe, O_CREAT | O_EXCL | O_WRONLY, 0o600)
        guard descriptor >= 0 else { throw lastError() }
        close(descriptor)
        unlink(probe)
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    static func isEmptyDirectory(_ path: String) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).isEmpty
    }

    static func absolute(_ path: String) -> String {
        let url = path.hasPrefix("/")
            ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        return url.standardizedFileURL.path
    }
}
