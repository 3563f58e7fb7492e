import FamilySyncCore
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The OpenAPI document and the server never disagree on what is served.
@Suite struct OpenAPIDocumentTests {
    @Test func listsExactlyTheServedRoutes() throws {
        // The web dashboard's pages (/app/…) are HTML for a browser, not the API: docs/dashboard.md.
        let servedByPath = servedRoutes().filter { !$0.key.hasPrefix("/app") }
        #expect(!servedByPath.isEmpty)
        #expect(OpenAPIDocument.routes == servedByPath)
    }

    @Test func listsEveryErrorCode() {
        let listed = Set(OpenAPIDocument.text.matches(of: /\n {16}- ([A-Z_]+)/).map { String($0.1) })
        #expect(listed == Set(FamilySyncError.Code.allCases.map(\.rawValue)))
    }

    /// A category in an answer is any category id (§9.1), as `CategoryID` takes them: the
    /// built-ins and a family's own `x-…`, never only learning and reward.
    @Test func categoriesAreEveryCategoryID() throws {
        let match = try #require(OpenAPIDocument.text.firstMatch(of: /\n    CategoryId:\n(?:      .*\n)*?      pattern: "([^"]+)"/), "no CategoryId schema")
        let pattern = try Regex(String(match.1))
        for id in CategoryID.builtIn.keys.sorted() + ["x-chores", "x-" + String(repeating: "a", count: 64)] {
            #expect(CategoryID(rawValue: id) != nil && id.firstMatch(of: pattern) != nil, "\(id)")
        }
        for id in ["games", "x-", "x-Chores", "Learning", "x-" + String(repeating: "a", count: 65)] {
            #expect(CategoryID(rawValue: id) == nil && id.firstMatch(of: pattern) == nil, "\(id)")
        }
        #expect(!OpenAPIDocument.text.contains("category: { type: string, enum:"), "a category limited to some ids")
    }

    /// A body larger than the server's limit is 413 wherever it is sent (PROTOCOL §1, §14), so every
    /// operation that takes one lists 413.
    @Test func everyOperationWithABodyListsLimitExceeded() {
        #expect(Self.operations().count == OpenAPIDocument.routes.values.map(\.count).reduce(0, +))
        var missing: [String] = []
        for (name, lines) in Self.operations() where lines.contains("      requestBody:") && !lines.contains(where: { $0.hasPrefix("        \"413\":") }) {
            missing.append(name)
        }
        #expect(missing.isEmpty, "\(missing)")
    }

    /// Every `/v1` operation needs the database, and answers 503 while it is away or when it sheds
    /// the request (the document's own preamble, PROTOCOL §1.2): each lists it.
    @Test func everyV1OperationListsUnavailable() {
        let missing = Self.operations().filter { $0.0.contains(" /v1/") && !$0.1.contains(where: { $0.hasPrefix("        \"503\":") }) }.map(\.0)
        #expect(missing.isEmpty, "\(missing)")
    }

    /// Each operation of the document (`METHOD /path`) with its lines.
    static func operations() -> [(String, [Substring])] {
        var operations: [(String, [Substring])] = []
        var path: String?, inOperation = false
        for line in OpenAPIDocument.text.split(separator: "\n") {
            if line == "paths:" { path = ""; continue }
            guard path != nil else { continue }
            if !line.hasPrefix(" ") { break }
            if let match = line.wholeMatch(of: /\ {2}(\/\S*):/) {
                path = String(match.1)
                inOperation = false
            } else if let match = line.wholeMatch(of: /\ {4}(get|put|post|patch|delete):/) {
                operations.append(("\(match.1.uppercased()) \(path ?? "")", []))
                inOperation = true
            } else if line.hasPrefix("      "), inOperation {
                operations[operations.count - 1].1.append(line)
            } else {
                inOperation = false
            }
        }
        return operations
    }
}
