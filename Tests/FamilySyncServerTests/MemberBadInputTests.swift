import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The bad inputs of members, tracking and recovery (PROTOCOL §8, §13): each gets §1.1's error
/// with the right status, and changes nothing.
@Suite struct MemberBadInputTests {
    /// The fixture, and the members a case may name besides the child's and the sibling's.
    struct Ids: Sendable {
        var fixture: FamilyFixture
        var parentMember: UUID
        var otherFamilyMember: UUID
    }

    enum Caller: Sendable { case parent, child, nobody }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var method: HTTPRequest.Method
        var uri: @Sendable (Ids) -> String
        var json: @Sendable (Ids) -> String? = { _ in nil }
        var caller = Caller.parent
        var status: HTTPResponse.Status
        var code: String
        var field: String? = nil
    }

    static let device = #""device":{"name":"P","platform":"ios","timeZone":"UTC"}"#

    static let cases: [Case] = [
        Case(description: "a member without a name", method: .post, uri: { _ in "/v1/members" }, json: { _ in #"{"name":"","role":"child"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "name"),
        Case(description: "a member of an unknown role", method: .post, uri: { _ in "/v1/members" }, json: { _ in #"{"name":"Gran","role":"grandparent"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "role"),
        Case(description: "a member with an unknown field", method: .post, uri: { _ in "/v1/members" }, json: { _ in #"{"name":"Gran","role":"parent","age":70}"# }, status: .badRequest, code: "BAD_REQUEST", field: "age"),
        Case(description: "renaming an unknown member", method: .patch, uri: { _ in "/v1/members/\(UUID().lowercased)" }, json: { _ in #"{"name":"X"}"# }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "renaming another family's member", method: .patch, uri: { "/v1/members/\($0.otherFamilyMember.lowercased)" }, json: { _ in #"{"name":"X"}"# }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "renaming to null", method: .patch, uri: { "/v1/members/\($0.fixture.childMemberID.lowercased)" }, json: { _ in #"{"name":null}"# }, status: .badRequest, code: "BAD_REQUEST", field: "name"),
        Case(description: "a member id that is no UUID", method: .patch, uri: { _ in "/v1/members/johnny" }, json: { _ in #"{"name":"X"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "id"),
        Case(description: "deleting one's own member", method: .delete, uri: { "/v1/members/\($0.parentMember.lowercased)" }, status: .conflict, code: "CONFLICT"),
        Case(description: "deleting another family's member", method: .delete, uri: { "/v1/members/\($0.otherFamilyMember.lowercased)" }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "moving a child's device to a parent member", method: .post, uri: { "/v1/devices/\($0.fixture.child.deviceID.lowercased)/member" }, json: { #"{"memberId":"\#($0.parentMember.lowercased)"}"# }, status: .conflict, code: "CONFLICT"),
        Case(description: "moving a device to an unknown member", method: .post, uri: { "/v1/devices/\($0.fixture.child.deviceID.lowercased)/member" }, json: { _ in #"{"memberId":"\#(UUID().lowercased)"}"# }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "moving a device to another family's member", method: .post, uri: { "/v1/devices/\($0.fixture.child.deviceID.lowercased)/member" }, json: { #"{"memberId":"\#($0.otherFamilyMember.lowercased)"}"# }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "moving a device awaiting confirmation", method: .post, uri: { "/v1/devices/\($0.fixture.awaiting.deviceID.lowercased)/member" }, json: { #"{"memberId":"\#($0.fixture.siblingMemberID.lowercased)"}"# }, status: .conflict, code: "CONFLICT"),
        Case(description: "moving to a memberId that is no UUID", method: .post, uri: { "/v1/devices/\($0.fixture.child.deviceID.lowercased)/member" }, json: { _ in #"{"memberId":"ann"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "memberId"),
        Case(description: "a pairing naming a member and a new child", method: .post, uri: { _ in "/v1/pairings" }, json: { #"{"role":"child","childName":"Ann","memberId":"\#($0.fixture.childMemberID.lowercased)"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "childName"),
        Case(description: "a child pairing into a parent member", method: .post, uri: { _ in "/v1/pairings" }, json: { #"{"role":"child","memberId":"\#($0.parentMember.lowercased)"}"# }, status: .conflict, code: "CONFLICT"),
        Case(description: "a pairing into another family's member", method: .post, uri: { _ in "/v1/pairings" }, json: { #"{"role":"child","memberId":"\#($0.otherFamilyMember.lowercased)"}"# }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "member summaries from a non-date", method: .get, uri: { "/v1/members/\($0.fixture.childMemberID.lowercased)/summaries?from=monday&to=2026-11-07" }, status: .badRequest, code: "BAD_REQUEST", field: "from"),
        Case(description: "an unknown member's summaries", method: .get, uri: { _ in "/v1/members/\(UUID().lowercased)/summaries?from=2026-11-01&to=2026-11-07" }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "another family's member's report", method: .get, uri: { "/v1/members/\($0.otherFamilyMember.lowercased)/report?from=2026-11-01&to=2026-11-07" }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "a member report by month", method: .get, uri: { "/v1/members/\($0.fixture.childMemberID.lowercased)/report?from=2026-11-01&to=2026-11-07&granularity=month" }, status: .badRequest, code: "BAD_REQUEST", field: "granularity"),
        Case(description: "tracked as a string", method: .patch, uri: { _ in "/v1/devices/me" }, json: { _ in #"{"tracked":"yes"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "tracked"),
        Case(description: "tracking another device", method: .patch, uri: { "/v1/devices/\($0.fixture.child.deviceID.lowercased)" }, json: { _ in #"{"tracked":true}"# }, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "a child untracking itself", method: .patch, uri: { _ in "/v1/devices/me" }, json: { _ in #"{"tracked":false}"# }, caller: .child, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "recovering with a code and a token", method: .post, uri: { _ in "/v1/families/recover" }, json: { _ in #"{"recoveryCode":"AAAA","appleIdentityToken":"x.y.z","nonce":"n",\#(device)}"# }, caller: .nobody, status: .badRequest, code: "BAD_REQUEST"),
        Case(description: "recovering with neither", method: .post, uri: { _ in "/v1/families/recover" }, json: { _ in "{\(device)}" }, caller: .nobody, status: .badRequest, code: "BAD_REQUEST"),
        Case(description: "a recovery code with a nonce", method: .post, uri: { _ in "/v1/families/recover" }, json: { _ in #"{"recoveryCode":"AAAA","nonce":"n",\#(device)}"# }, caller: .nobody, status: .badRequest, code: "BAD_REQUEST", field: "nonce"),
        Case(description: "an Apple token without its nonce", method: .post, uri: { _ in "/v1/families/recover" }, json: { _ in #"{"appleIdentityToken":"x.y.z",\#(device)}"# }, caller: .nobody, status: .badRequest, code: "BAD_REQUEST", field: "nonce"),
        Case(description: "a recovery code that cannot be one", method: .post, uri: { _ in "/v1/families/recover" }, json: { _ in #"{"recoveryCode":"hello",\#(device)}"# }, caller: .nobody, status: .notFound, code: "NOT_FOUND"),
        Case(description: "a recovery without a device", method: .post, uri: { _ in "/v1/families/recover" }, json: { _ in #"{"recoveryCode":"AAAA"}"# }, caller: .nobody, status: .badRequest, code: "BAD_REQUEST", field: "device"),
        Case(description: "a parent's zone named like a member's", method: .post, uri: { _ in "/v1/zones" }, json: { _ in #"{"zoneName":"member-mine"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "zoneName"),
        Case(description: "a parent's zone named like a tracked device's", method: .post, uri: { _ in "/v1/zones" }, json: { _ in #"{"zoneName":"device-mine"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "zoneName"),
        Case(description: "deleting a member's zone", method: .delete, uri: { "/v1/zones/member-\($0.fixture.childMemberID.lowercased)" }, status: .conflict, code: "CONFLICT"),
        Case(description: "an Apple link without a nonce", method: .post, uri: { _ in "/v1/account/apple" }, json: { _ in #"{"identityToken":"x.y.z"}"# }, status: .badRequest, code: "BAD_REQUEST", field: "nonce"),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ bad: Case) async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let ids = Ids(
                fixture: fixture, parentMember: try await server.memberID(of: fixture.parent),
                otherFamilyMember: try await server.memberID(of: fixture.otherParent)
            )
            let before = try await server.fingerprint()
            let credential: String? = switch bad.caller {
            case .parent: fixture.parent.credential
            case .child: fixture.child.credential
            case .nobody: nil
            }
            let reply = try await server.send(bad.method, bad.uri(ids), credential: credential, json: bad.json(ids))
            #expect(reply.status == bad.status, "\(String(buffer: reply.body).prefix(300))")
            #expect(reply.errorCode == bad.code)
            if let field = bad.field { #expect(reply.error?.field == field) }
            #expect(try await server.fingerprint() == before, "the refused request changed the database")
        }
    }
}
