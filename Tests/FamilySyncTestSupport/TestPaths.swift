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
}
