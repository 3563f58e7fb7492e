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
}
