import FamilySyncTestSupport
import Foundation
import Testing

/// The `FamilySyncClient` library builds for an iOS app and its extensions: nothing it depends on,
/// or imports, is SwiftNIO, AsyncHTTPClient or a server module.
@Suite struct ClientTargetDependencyTests {
    /// Packages the SDK may reach: swift-crypto is CryptoKit's API on every platform.
    static let allowedPackages: Set<String> = ["swift-crypto"]
    /// Modules the SDK's sources (and the package targets it depends on) may import.
    static let allowedImports: Set<String> = [
        "Foundation", "FoundationNetworking", "Synchronization", "Dispatch", "Glibc", "Musl", "Darwin",
        "Crypto", "CryptoExtras", "FamilySyncCore", "FamilySyncProtocol", "FamilySyncClient",
    ]

    /// The manifest as SwiftPM reads it, from a copy alone in a folder of its own (so as not to
    /// wait on the lock of the build this test runs in).
    static func manifest() async throws -> [String: Any] {
        try await withTemporaryDirectory { directory in
            let directory = URL(fileURLWithPath: directory)
            try FileManager.default.copyItem(at: TestPaths.packageRoot.appendingPathComponent("Package.swift"), to: directory.appendingPathComponent("Package.swift"))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["swift", "package", "dump-package", "--package-path", directory.path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
    }

    @Test func theClientDependsOnNothingButFoundationAndCrypto() async throws {
        let manifest = try await Self.manifest()
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        var dependencies: [String: [(target: String?, package: String?)]] = [:]
        for target in targets {
            let name = try #require(target["name"] as? String)
            dependencies[name] = (target["dependencies"] as? [[String: [Any?]]] ?? []).map { dependency in
                if let product = dependency["product"] { return (nil, product[1] as? String) }
                return ((dependency["byName"] ?? dependency["target"])?.first as? String, nil)
            }
        }
        // The package's targets the library reaches, and the packages they bring.
        var reached: Set<String> = []
        var packages: Set<String> = []
        var pending = ["FamilySyncClient"]
        while let target = pending.popLast() {
            guard reached.insert(target).inserted else { continue }
            for dependency in dependencies[target] ?? [] {
                if let name = dependency.target { pending.append(name) }
                if let package = dependency.package { packages.insert(package) }
            }
        }
        #expect(reached == ["FamilySyncClient", "FamilySyncProtocol", "FamilySyncCore"])
        #expect(packages.subtracting(Self.allowedPackages) == [])

        var imports: [String: Set<String>] = [:]
        for target in reached {
            for path in TestPaths.swiftFiles(under: "Sources/\(target)") {
                for match in try TestPaths.text(of: path).matches(of: /(?m)^\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|func|protocol)\s+)?(\w+)/) {
                    imports[String(match.1), default: []].insert("\(target)/\((path as NSString).lastPathComponent)")
                }
            }
        }
        #expect(imports.count >= 4, "the scan found the imports")
        let forbidden = imports.filter { !Self.allowedImports.contains($0.key) }
        #expect(forbidden.isEmpty, "imports outside the SDK's platforms: \(forbidden)")
    }

    @Test func theApplePlatformsAreDeclared() async throws {
        let platforms = try #require(try await Self.manifest()["platforms"] as? [[String: Any]])
        let names = Set(platforms.compactMap { $0["platformName"] as? String })
        #expect(names.isSuperset(of: ["ios", "macos", "watchos", "tvos"]))
    }
}
