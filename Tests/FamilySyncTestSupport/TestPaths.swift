import Foundation

public enum TestPaths {
    /// The package's root folder, found from this file's path.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `familysync` executable of this build: beside the test bundle SwiftPM runs.
    public static var familysyncBinary: String {
        let testBundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBundle.deletingLastPathComponent().appendingPathComponent("familysync").path
    }

    /// Every Swift file under `folder` (relative to the package, subfolders included), as paths
    /// relative to the package, sorted: what the tests that read the sources walk.
    public static func swiftFiles(under folder: String) -> [String] {
        let base = packageRoot.appendingPathComponent(folder)
        let found = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        return found.filter { $0.hasSuffix(".swift") }.map { "\(folder)/\($0)" }.sorted()
    }

    /// The text of a file given relative to the package.
    public static func text(of path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }
}
