import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file only its owner may read, durably and whole: the bytes go to a new mode-0600 file
/// beside it, are flushed to disk, and the file is renamed over the old one. A crash leaves the old
/// content or the new, never half, and no other user can read it in between (credentials and a
/// child's usage are kept this way).
public enum PrivateFile {
    public static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        var closed = false
        defer {
            if !closed { close(descriptor) }
        }
        do {
            try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw failure("write", temporary)
                    }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0 else { throw failure("flush", temporary) }
            closed = true
            guard close(descriptor) == 0 else { throw failure("close", temporary) }
            guard rename(temporary.path, url.path) == 0 else { throw failure("rename", url) }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    private static func failure(_ action: String, _ url: URL) -> CocoaError {
        let reason = String(cString: strerror(errno))
        return CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: "could not \(action) \(url.path): \(reason)"])
    }
}
