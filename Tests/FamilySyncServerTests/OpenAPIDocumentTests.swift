import FamilySyncCore
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// The OpenAPI document and the server never disagree on what is served.
@Suite struct OpenAPIDocumentTests {
    static let document: String = (try? String(
        contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8
    )) ?? ""

    /// `path → methods` as the document lists them (two-space paths, four-space methods).
    static var documentedRoutes: [String: Set<String>] {
        var routes: [String: Set<String>] = [:]
        var current: String?
        var inPaths = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" { inPaths = true; continue }
            if inPaths, !line.hasPrefix(" "), !line.isEmpty { inPaths = false }
            guard inPaths else { continue }
            if let match = line.wholeMatch(of: /\ {2}(\/\S*):/) {
                current = String(match.1)
                routes[current!] = []
            } else if let match = line.wholeMatch(of: /\ {4}(get|put|post|patch|delete|head|options):/), let current {
                routes[current]?.insert(match.1.uppercased())
            }
        }
        return routes
    }

    @Test func listsExactlyTheServedRoutes() throws {
        let servedByPath = servedRoutes()
        #expect(!servedByPath.isEmpty)
        #expect(Self.documentedRoutes == servedByPath)
    }

    @Test func listsEveryErrorCode() {
        let listed = Set(Self.document.matches(of: /\n {16}- ([A-Z_]+)/).map { String($0.1) })
        #expect(listed == Set(FamilySyncError.Code.allCases.map(\.rawValue)))
    }
}
