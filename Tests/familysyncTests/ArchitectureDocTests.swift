import FamilySyncTestSupport
import Foundation
import Testing

/// docs/architecture.md's layout block stays true: every folder and target is listed
/// and every listed one exists, each source file is in a listed folder, every store and controller
/// is named, and no name there is one the code no longer has.
@Suite struct ArchitectureDocTests {
    static let root = TestPaths.packageRoot

    /// The block's folders, as paths (`Sources/FamilySyncCore/Basics`), and its whole text. A
    /// folder line holds a name ending in `/` at two spaces a level; its description follows.
    static func layout() throws -> (folders: Set<String>, text: String) {
        let doc = try TestPaths.text(of: "docs/architecture.md")
        let start = try #require(doc.range(of: "```\nSources/"))
        let end = try #require(doc.range(of: "```", range: start.upperBound..<doc.endIndex))
        let block = String(doc[doc.index(start.lowerBound, offsetBy: 4)..<end.lowerBound])
        var stack: [String] = []
        var folders: Set<String> = []
        for line in block.split(separator: "\n") {
            let indent = line.prefix(while: { $0 == " " }).count
            guard indent < 12, indent % 2 == 0, let name = line.dropFirst(indent).split(separator: " ").first, name.hasSuffix("/") else { continue }
            let depth = indent / 2
            stack = Array(stack.prefix(depth)) + [String(name.dropLast())]
            folders.insert(stack.joined(separator: "/"))
        }
        return (folders, block)
    }

    /// Every folder under `top` that holds a file or a folder, relative to the package.
    static func folders(under top: String) -> Set<String> {
        let base = root.appendingPathComponent(top)
        var found: Set<String> = [top]
        for case let path as String in FileManager.default.enumerator(atPath: base.path) ?? FileManager.default.enumerator(atPath: "/dev/null")! {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: base.appendingPathComponent(path).path, isDirectory: &isFolder), isFolder.boolValue {
                found.insert("\(top)/\(path)")
            }
        }
        return found
    }

    @Test func everyFolderIsListedAndEveryListedFolderExists() throws {
        let (listed, text) = try Self.layout()
        let present = Self.folders(under: "Sources").union(Self.folders(under: "Tests")).union(Self.folders(under: "Benchmarks"))
        #expect(present.count > 30, "the walk found the folders")
        #expect(present.subtracting(listed).isEmpty, "not in docs/architecture.md: \(present.subtracting(listed).sorted())")
        let stale = listed.filter { $0.hasPrefix("Sources") || $0.hasPrefix("Tests") || $0.hasPrefix("Benchmarks") }.subtracting(present)
        #expect(stale.isEmpty, "listed but gone: \(stale.sorted())")
        // A source file is named in the block or sits in a listed folder.
        let unlisted = ["Sources", "Tests", "Benchmarks"].flatMap(TestPaths.swiftFiles(under:)).filter { path in
            !listed.contains((path as NSString).deletingLastPathComponent) && !text.contains(((path as NSString).lastPathComponent as NSString).deletingPathExtension)
        }
        #expect(unlisted.isEmpty, "\(unlisted)")
    }

    @Test func everyTargetIsListed() throws {
        let (listed, _) = try Self.layout()
        let manifest = try TestPaths.text(of: "Package.swift")
        // Each target's declaration, up to the next one: its name and, if given, its path.
        let starts = manifest.ranges(of: /\.(?:target|testTarget|executableTarget)\(/).map(\.lowerBound)
        var targets: [String] = []
        for (index, start) in starts.enumerated() {
            let declaration = manifest[start..<(index + 1 < starts.count ? starts[index + 1] : manifest.endIndex)]
            guard let name = declaration.firstMatch(of: /name: "([^"]+)"/)?.1 else { continue }
            let path = declaration.firstMatch(of: /path: "([^"]+)"/).map { String($0.1) }
            targets.append(path ?? ((declaration.hasPrefix(".testTarget") ? "Tests/" : "Sources/") + name))
        }
        #expect(targets.count >= 18, "the manifest's targets were found: \(targets)")
        let missing = targets.filter { !listed.contains($0) }
        #expect(missing.isEmpty, "targets not in docs/architecture.md: \(missing)")
    }

    /// Stores and controllers are named; a name that looks like one must be one.
    @Test func everyStoreAndControllerIsNamedAndNoneIsStale() throws {
        let (_, text) = try Self.layout()
        let words = Set(text.matches(of: /[A-Za-z+]+/).map { String($0.output) })
        func name(_ path: String) -> String { ((path as NSString).lastPathComponent as NSString).deletingPathExtension }
        // Stores by their prefix, wherever their concept's folder is; controllers by their suffix.
        let stores = TestPaths.swiftFiles(under: "Sources/FamilySyncPostgres").map(name).filter { $0.hasPrefix("Postgres") && !$0.contains("+") } + ["KnownDevices"]
        let controllers = TestPaths.swiftFiles(under: "Sources/FamilySyncServer").map(name).filter { $0.hasSuffix("Controller") }
        let named = stores + controllers
        #expect(named.count > 40, "the stores and controllers were found")
        #expect(named.filter { !words.contains($0) }.isEmpty, "not named in docs/architecture.md: \(named.filter { !words.contains($0) })")

        let declared = try ["Sources", "Tests", "Benchmarks"].flatMap(TestPaths.swiftFiles(under:)).reduce(into: Set<String>()) { names, path in
            for match in try TestPaths.text(of: path).matches(of: /(?:struct|class|enum|actor|protocol|typealias)\s+(\w+)/) { names.insert(String(match.1)) }
        }
        // Anywhere in the page, not only the block.
        let doc = try TestPaths.text(of: "docs/architecture.md")
        let claimed = Set(doc.matches(of: /[A-Za-z]+/).map { String($0.output) }).filter { $0.range(of: #"^(Postgres[A-Z]\w*|[A-Z]\w*(Store|Controller|Reads|Writes|Intake|Middleware|Service|Transport))$"#, options: .regularExpression) != nil }
        #expect(!claimed.isEmpty)
        // What the page names of its libraries (Hummingbird, PostgresNIO).
        let libraries: Set = ["MetricsMiddleware", "PostgresNIO", "PostgresClient", "PostgresConnection"]
        #expect(claimed.subtracting(declared).subtracting(libraries).isEmpty, "docs/architecture.md names what the code does not have: \(claimed.subtracting(declared).subtracting(libraries).sorted())")
    }

    /// The HTTP target writes and reads the wire from Core's and the protocol's types: its JSON
    /// codec and the pages of changes import no store, and the wiring is FamilySyncApp's.
    @Test func theWireCodecImportsNoStoreAndTheHTTPTargetBuildsNothing() throws {
        let codec = TestPaths.swiftFiles(under: "Sources/FamilySyncServer/JSON") + TestPaths.swiftFiles(under: "Sources/FamilySyncServer/Sync")
        #expect(codec.count > 10, "the codec's files were found")
        let importing = try codec.filter { try TestPaths.text(of: $0).contains("import FamilySyncPostgres") }
        #expect(importing.isEmpty, "\(importing)")
        let server = try TestPaths.swiftFiles(under: "Sources/FamilySyncServer").map { ($0, try TestPaths.text(of: $0)) }
        let wiring = server.filter { $0.1.contains("ChangeLog(database:") || $0.1.contains("func buildApplication") }.map(\.0)
        #expect(wiring.isEmpty, "\(wiring)")
    }
}
