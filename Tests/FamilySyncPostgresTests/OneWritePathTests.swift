import FamilySyncTestSupport
import Foundation
import Testing

/// docs/architecture.md, "One change log": every change of a family is numbered, notified and
/// dropped from the credential caches in one place. These read the sources and fail on a write
/// of the change log's kind anywhere else, so that a store cannot quietly bypass it.
@Suite struct OneWritePathTests {
    /// The change log's own files: they alone number, notify and write records.
    static func isChangeLog(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        return name == "ChangeLog.swift" || name.hasPrefix("LockedFamily") || name == "ChangeNoticeChannel.swift"
    }

    /// What only the change log writes, each with why.
    static let rules: [(pattern: String, why: String)] = [
        (#"SET\s+change_seq|change_seq\s*\+|INSERT INTO families"#, "advances or starts a family's change sequence"),
        (#"horizon_seq\s*="#, "moves a family's change-token horizon"),
        (#"changed_seq\s*="#, "stamps a zone or a device with a change number"),
        (#"INSERT INTO (records|zones)|UPDATE (records|zones)\b|DELETE FROM (records|zones)\b"#, "writes records or zones"),
        (#"pg_notify"#, "notifies outside the change log's transaction"),
        (#"INSERT INTO audit_events"#, "writes the audit log outside the transaction of the change it records"),
        (#"ChangeNoticeChannel\.publish|\.advance\(|\.announce\("#, "publishes or numbers by hand"),
        // A device's `last_seen_at` and `last_sync_at` are bookkeeping, not changes: no number, no
        // notice, no cache to drop (docs/architecture.md, "One change log").
        (#"UPDATE (devices|members) SET (?!last_seen_at|last_sync_at)|DELETE FROM (families|devices|members)\b|\.publish\("#,
         "changes a device, a member or the family, or publishes, outside the change log's typed operations"),
    ]

    /// Each source file of the package's targets, relative to the package, with its text;
    /// the migrations (the schema itself) aside.
    static func sources() throws -> [(path: String, text: String)] {
        // Paths relative to Sources/, as the offences name them.
        try TestPaths.swiftFiles(under: "Sources").filter { !$0.hasSuffix("EmbeddedMigrations.swift") }.map { path in
            (String(path.dropFirst("Sources/".count)), try TestPaths.text(of: path))
        }
    }

    /// The lines of `text` that break a rule, with the rule's reason.
    static func violations(in text: String) throws -> [(line: Int, why: String)] {
        let expressions = try rules.map { (try NSRegularExpression(pattern: $0.pattern), $0.why) }
        var found: [(Int, String)] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            // Comments may name what they explain.
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
            for (expression, why) in expressions where expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                found.append((number + 1, why))
            }
        }
        return found
    }

    @Test func nothingOutsideTheChangeLogNumbersNotifiesOrWritesRecords() throws {
        var offences: [String] = []
        for (path, text) in try Self.sources() where !Self.isChangeLog(path) {
            offences += try Self.violations(in: text).map { "Sources/\(path):\($0.line) \($0.why)" }
        }
        #expect(offences.isEmpty, "\(offences.joined(separator: "\n"))")
    }

    /// The rules are live: the change log's own files break each of them (a pattern that matched
    /// nothing anywhere would pass the test above for nothing).
    @Test func everyRuleFindsTheChangeLogsOwnWrites() throws {
        let changeLog = try Self.sources().filter { Self.isChangeLog($0.path) }.map(\.text).joined(separator: "\n")
        let broken = Set(try Self.violations(in: changeLog).map(\.why))
        #expect(broken == Set(Self.rules.map(\.why)))
    }

    /// One change log, made where the application is assembled and handed to every store; the
    /// CLI's token fence runs before any server, on a connection of its own.
    @Test func theChangeLogIsMadeOnceAndItsConnectionIsNotPublic() throws {
        let sources = try Self.sources()
        let makers = sources.filter { $0.text.contains("ChangeLog(database:") }.map(\.path)
        #expect(makers == ["FamilySyncApp/ServerDependencies.swift"])
        let lockedFamily = sources.filter { ($0.path as NSString).lastPathComponent.hasPrefix("LockedFamily") }
        #expect(!lockedFamily.isEmpty)
        for (path, text) in lockedFamily {
            #expect(!text.contains("public let connection") && !text.contains("public var connection"), "\(path)")
        }
    }
}
