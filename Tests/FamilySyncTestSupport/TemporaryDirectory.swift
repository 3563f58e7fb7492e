import Foundation

/// A fresh directory under /tmp (which the `postgres` user can reach), removed after `body`.
public func withTemporaryDirectory<Result>(_ body: (String) async throws -> Result) async throws -> Result {
    let path = "/tmp/familysync-t-" + UUID().uuidString.prefix(8).lowercased()
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}
