#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who runs the database processes. PostgreSQL refuses to run as root, so a server started as
/// root (as CI runs it) hands them to the unprivileged `postgres` system user.
struct DatabaseProcessOwner: Sendable, Equatable {
    var userID: uid_t
    var groupID: gid_t
    /// Whether the processes run as another user than this one.
    var isSwitched: Bool

    static func resolve() throws(EmbeddedPostgresError) -> DatabaseProcessOwner {
        guard geteuid() == 0 else {
            return DatabaseProcessOwner(userID: geteuid(), groupID: getegid(), isSwitched: false)
        }
        guard let entry = getpwnam("postgres") else {
            throw .postgresUserMissing
        }
        return DatabaseProcessOwner(userID: entry.pointee.pw_uid, groupID: entry.pointee.pw_gid, isSwitched: true)
    }

    /// util-linux's setpriv, which runs a program as another user.
    static func setprivPath() throws(EmbeddedPostgresError) -> String {
        for candidate in ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv"] where access(candidate, X_OK) == 0 {
            return candidate
        }
        throw .setprivMissing
    }

    /// Whether this user may enter every directory on the way to `path`.
    func canTraverse(to path: String) -> Bool {
        guard isSwitched else { return true }
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            var info = stat()
            guard stat(prefix, &info) == 0 else { return false }
            let mode = info.st_mode
            let searchable =
                (info.st_uid == userID && mode & S_IXUSR != 0)
                || (info.st_gid == groupID && mode & S_IXGRP != 0)
                || mode & S_IXOTH != 0
            if !searchable { return false }
        }
        return true
    }
}
