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
        let servedByPath = servedRoutes()
        #expect(!servedByPath.isEmpty)
        #expect(OpenAPIDocument.routes == servedByPath)
    }

    @Test func listsEveryErrorCode() {
        let listed = Set(OpenAPIDocument.text.matches(of: /\n {16}- ([A-Z_]+)/).map { String($0.1) })
        #expect(listed == Set(FamilySyncError.Code.allCases.map(\.rawValue)))
    }
}
