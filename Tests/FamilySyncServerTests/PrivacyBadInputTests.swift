import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The bad inputs of a family's data rights (PROTOCOL §15): each gets §1.1's error with the right
/// status and the member it is about, and changes nothing (the audit log included).
@Suite struct PrivacyBadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var method: HTTPRequest.Method
        var uri: @Sendable (FamilyFixture) -> String
        var json: String? = nil
        var status: HTTPResponse.Status = .badRequest
        var code = "BAD_REQUEST"
        var field: String?
    }

    static let retention = "/v1/families/me/retention"

    static let cases: [Case] = [
        Case(description: "no days", method: .put, uri: { _ in retention }, json: #"{}"#, field: "days"),
        Case(description: "days not an object", method: .put, uri: { _ in retention }, json: #"{"days":30}"#, field: "days"),
        Case(description: "an unknown kind", method: .put, uri: { _ in retention }, json: #"{"days":{"forever":30}}"#, field: "days.forever"),
        Case(description: "zero days", method: .put, uri: { _ in retention }, json: #"{"days":{"usageSessions":0}}"#, field: "days.usageSessions"),
        Case(description: "negative days", method: .put, uri: { _ in retention }, json: #"{"days":{"audit":-1}}"#, field: "days.audit"),
        Case(description: "past the operator's maximum", method: .put, uri: { _ in retention }, json: #"{"days":{"health":401}}"#, field: "days.health"),
        Case(description: "days as a string", method: .put, uri: { _ in retention }, json: #"{"days":{"alerts":"30"}}"#, field: "days.alerts"),
        Case(description: "days in fractions", method: .put, uri: { _ in retention }, json: #"{"days":{"alerts":1.5}}"#, field: "days.alerts"),
        Case(description: "days null", method: .put, uri: { _ in retention }, json: #"{"days":{"alerts":null}}"#, field: "days.alerts"),
        Case(description: "a member beside days", method: .put, uri: { _ in retention }, json: #"{"days":{},"maximumDays":9999}"#, field: "maximumDays"),
        Case(description: "not JSON", method: .put, uri: { _ in retention }, json: #"{"days":"#),
        Case(description: "an audit member that is no UUID", method: .get, uri: { _ in "/v1/audit?member=johnny" }, field: "member"),
        Case(description: "an audit cursor not given", method: .get, uri: { _ in "/v1/audit?cursor=abc" }, field: "cursor"),
        Case(description: "an audit cursor of zero", method: .get, uri: { _ in "/v1/audit?cursor=0" }, field: "cursor"),
        Case(description: "an audit page of none", method: .get, uri: { _ in "/v1/audit?limit=0" }, field: "limit"),
        Case(description: "an audit page too large", method: .get, uri: { _ in "/v1/audit?limit=1001" }, field: "limit"),
        Case(description: "reads without from", method: .get, uri: { _ in "/v1/audit/reads?to=2026-11-07" }, field: "from"),
        Case(description: "reads from a non-date", method: .get, uri: { _ in "/v1/audit/reads?from=monday&to=2026-11-07" }, field: "from"),
        Case(description: "a member export of an id that is no UUID", method: .get, uri: { _ in "/v1/members/johnny/export" }, field: "id"),
        Case(description: "a member export of an unknown member", method: .get, uri: { _ in "/v1/members/\(UUID().lowercased)/export" }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "an export by POST", method: .post, uri: { _ in "/v1/families/me/export" }, json: "{}", status: .methodNotAllowed, code: "METHOD_NOT_ALLOWED"),
        Case(description: "reads to before from", method: .get, uri: { _ in "/v1/audit/reads?from=2026-11-07&to=2026-11-01" }, field: "to"),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ bad: Case) async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let before = try await server.fingerprint()
            let reply = try await server.send(bad.method, bad.uri(fixture), credential: fixture.parent.credential, json: bad.json)
            #expect(reply.status == bad.status, "\(bad): \(String(buffer: reply.body))")
            #expect(reply.errorCode == bad.code, "\(bad)")
            #expect(reply.error?.field == bad.field, "\(bad): \(String(buffer: reply.body))")
            #expect(try await server.fingerprint() == before, "\(bad) changed something")
        }
    }
}
