import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import Testing

/// The binary carries its migrations; these tests prove they are exactly the files of `schema/`.
@Suite struct MigrationEmbeddingTests {
    static let schemaDirectory = TestPaths.packageRoot.appendingPathComponent("schema")

    @Test func carriesExactlyTheFilesOfSchema() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.schemaDirectory.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files == Migration.all.map(\.fileName), "run scripts/embed-migrations after changing schema/")
        for migration in Migration.all {
            let text = try String(contentsOf: Self.schemaDirectory.appendingPathComponent(migration.fileName), encoding: .utf8)
            #expect(text == migration.sql, "\(migration.fileName) differs from the embedded copy: run scripts/embed-migrations")
        }
    }

    @Test func versionsStartAtOneAndHaveNoGaps() {
        #expect(Migration.all.map(\.version) == Array(1...Migration.all.count))
    }

    @Test func everyFileIsNamedNNNN_name() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.schemaDirectory.path)
        for file in files {
            #expect(file.wholeMatch(of: /[0-9]{4}_[a-z0-9_]+\.sql/) != nil, "\(file) is not NNNN_name.sql")
        }
    }
}
