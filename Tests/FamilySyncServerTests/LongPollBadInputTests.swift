import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Testing

/// Bad `since` and `timeout` values: each is refused at once with §1.1's body, and holds nothing.
@Suite struct LongPollBadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        /// The query string, given the child's own token and other tokens to misuse.
        var query: @Sendable (Tokens) -> String
        var status: Int
        var code: String
        var field: String?
    }

    struct Tokens: Sendable {
        var child: String
        var parent: String
        var otherFamily: String
        var zone: String
    }

    static let cases: [Case] = [
        Case(description: "malformed since", query: { _ in "since=not-a-token" }, status: 400, code: "BAD_CHANGE_TOKEN", field: "since"),
        Case(description: "empty since", query: { _ in "since=" }, status: 400, code: "BAD_CHANGE_TOKEN", field: "since"),
        Case(description: "a token with its last character changed", query: { "since=" + String($0.child.dropLast()) + ($0.child.hasSuffix("B") ? "C" : "B") }, status: 400, code: "BAD_CHANGE_TOKEN", field: "since"),
        Case(description: "another device's token", query: { "since=\($0.parent)" }, status: 400, code: "BAD_CHANGE_TOKEN", field: "since"),
        Case(description: "another family's token", query: { "since=\($0.otherFamily)" }, status: 400, code: "BAD_CHANGE_TOKEN", field: "since"),
        Case(description: "a zone's token", query: { "since=\($0.zone)" }, status: 400, code: "BAD_CHANGE_TOKEN", field: "since"),
        Case(description: "timeout -1", query: { _ in "timeout=-1" }, status: 400, code: "BAD_REQUEST", field: "timeout"),
        Case(description: "timeout 61", query: { _ in "timeout=61" }, status: 400, code: "BAD_REQUEST", field: "timeout"),
        Case(description: "timeout 60.001", query: { _ in "timeout=60.001" }, status: 400, code: "BAD_REQUEST", field: "timeout"),
        Case(description: "timeout not a number", query: { _ in "timeout=soon" }, status: 400, code: "BAD_REQUEST", field: "timeout"),
        Case(description: "timeout empty", query: { _ in "timeout=" }, status: 400, code: "BAD_REQUEST", field: "timeout"),
        Case(description: "timeout nan", query: { _ in "timeout=nan" }, status: 400, code: "BAD_REQUEST", field: "timeout"),
        Case(description: "timeout inf", query: { _ in "timeout=inf" }, status: 400, code: "BAD_REQUEST", field: "timeout"),
        Case(description: "timeout 1e400", query: { _ in "timeout=1e400" }, status: 400, code: "BAD_REQUEST", field: "timeout"),
    ]

    @Test(arguments: cases)
    func isRefusedAtOnce(_ bad: Case) async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let other = try await server.createFamily(name: "Other")
            let zones = try await server.send(.get, "/v1/zones", credential: child.credential).decode(ZoneList.self)
            let tokens = Tokens(
                child: try await server.databaseToken(child), parent: try await server.databaseToken(parent),
                otherFamily: try await server.databaseToken(other), zone: try #require(zones.zones.first?.changeToken)
            )
            let reply = try await server.send(.get, "/v1/poll?" + bad.query(tokens), credential: child.credential, timeout: .seconds(20))
            #expect(Int(reply.status.code) == bad.status, "\(String(buffer: reply.body))")
            #expect(reply.errorCode == bad.code)
            #expect(reply.error?.field == bad.field)
            #expect(server.heldPolls == 0)
        }
    }

    /// A token older than the tombstone horizon may have missed a purged deletion: 410, as for
    /// /v1/changes, and the client fetches again without one.
    @Test func aTokenOlderThanTheHorizonIsGone() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let token = try await server.databaseToken(parent)
            try await server.configure("family", by: parent)
            try await server.postgres.query("UPDATE families SET horizon_seq = change_seq WHERE family_id = \(parent.familyID)", logger: testLogger)
            let reply = try await server.poll(parent, since: token, timeout: 30, within: .seconds(20))
            #expect(reply.status == .gone)
            #expect(reply.errorCode == "CHANGE_TOKEN_EXPIRED")
            #expect(server.heldPolls == 0)
        }
    }
}
