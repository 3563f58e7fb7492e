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
    /// `protection`: the data protection class of the file (and of a folder made for it) on iOS,
    /// watchOS, tvOS and visionOS, set before any byte is written; nil keeps the container's.
    public static func write(_ data: Data, to url: URL, protection: FileProtectionType? = nil) throws {
        let directory = url.deletingLastPathComponent()
        try makeDirectory(directory, protection: protection)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        var closed = false
        defer {
            if !closed { close(descriptor) }
        }
        do {
            try protect(temporary, protection)
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

    /// A folder only its owner may enter, in `protection`'s class where the platform has classes.
    public static func makeDirectory(_ directory: URL, protection: FileProtectionType? = nil) throws {
        guard !FileManager.default.fileExists(atPath: directory.path) else { return }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try protect(directory, protection)
    }

    /// Data protection classes exist on the platforms whose devices lock: there a file in a
    /// stricter class than `completeUntilFirstUserAuthentication` cannot be read by an extension
    /// running while the device is locked. macOS and Linux have no classes; mode 0600 is the
    /// protection there.
    static func protect(_ url: URL, _ protection: FileProtectionType?) throws {
        #if os(iOS) || os(watchOS) || os(tvOS) || os(visionOS)
        if let protection { try FileManager.default.setAttributes([.protectionKey: protection], ofItemAtPath: url.path) }
        #endif
    }

    private static func failure(_ action: String, _ url: URL) -> CocoaError {
        let reason = String(cString: strerror(errno))
        return CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: "could not \(action) \(url.path): \(reason)"])
    }
}
