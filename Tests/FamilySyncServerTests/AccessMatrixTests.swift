import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// docs/access.md as a table: every endpoint × every kind of caller, each cell on a fresh fixture.
@Suite struct AccessMatrixTests {
    enum Caller: String, CaseIterable, Sendable {
        case parent, child, awaiting, revoked, otherFamilyParent, noCredential
        /// Another child member's device in family A (§8): it must not see the child's things.
        case sibling
        /// The operator's token (§10.1): a family's endpoints take it as any unknown credential.
        case `operator`
    }

    struct Endpoint: Sendable {
        var name: String
        var method: HTTPRequest.Method
        var uri: @Sendable (FamilyFixture) -> String
        var json: @Sendable (FamilyFixture) -> String? = { _ in nil }
        /// parent, child, awaiting, revoked, other family's parent, no credential, sibling
        var expected: [Int]
        /// The operator's token; nil: as no credential (a family's endpoints do not know it).
        var operatorExpected: Int? = nil
        /// Members the answer repeats from the request by design (the zone names asked for),
        /// taken out before the leak checks: everything else in the answer is still checked.
        var echoed: @Sendable (FamilyFixture) -> [String] = { _ in [] }
    }

    static let device = #"{"name":"Tablet","platform":"ipados","timeZone":"Europe/Berlin"}"#

    static let endpoints: [Endpoint] = [
        Endpoint(name: "POST /v1/families", method: .post, uri: { _ in "/v1/families" }, json: { _ in #"{"device":\#(device)}"# }, expected: [201, 201, 201, 201, 201, 201, 201]),
        Endpoint(name: "GET /v1/devices", method: .get, uri: { _ in "/v1/devices" }, expected: [200, 200, 403, 401, 200, 401, 200]),
        Endpoint(name: "GET /v1/devices/me", method: .get, uri: { _ in "/v1/devices/me" }, expected: [200, 200, 200, 401, 200, 401, 200]),
        Endpoint(name: "PATCH /v1/devices/{child}", method: .patch, uri: { "/v1/devices/\($0.child.deviceID.lowercased)" }, json: { _ in #"{"name":"Renamed"}"# }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "PATCH /v1/devices/me", method: .patch, uri: { _ in "/v1/devices/me" }, json: { _ in #"{"name":"Renamed"}"# }, expected: [200, 200, 403, 401, 200, 401, 200]),
        Endpoint(name: "DELETE /v1/devices/{child}", method: .delete, uri: { "/v1/devices/\($0.child.deviceID.lowercased)" }, expected: [204, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "POST /v1/devices/me/credential", method: .post, uri: { _ in "/v1/devices/me/credential" }, expected: [200, 200, 403, 401, 200, 401, 200]),
        Endpoint(name: "DELETE /v1/families/me", method: .delete, uri: { _ in "/v1/families/me" }, expected: [204, 403, 403, 401, 204, 401, 403]),
        Endpoint(name: "POST /v1/pairings", method: .post, uri: { _ in "/v1/pairings" }, json: { _ in #"{"role":"child"}"# }, expected: [201, 403, 403, 401, 201, 401, 403]),
        Endpoint(name: "GET /v1/pairings", method: .get, uri: { _ in "/v1/pairings" }, expected: [200, 403, 403, 401, 200, 401, 403]),
        Endpoint(name: "GET /v1/pairings/{awaiting's}", method: .get, uri: { "/v1/pairings/\($0.awaitingPairingID.lowercased)" }, expected: [200, 403, 200, 401, 404, 401, 403]),
        Endpoint(name: "POST /v1/pairings/accept", method: .post, uri: { _ in "/v1/pairings/accept" }, json: { #"{"qrPayload":"\#($0.pendingQRPayload)","device":\#(device)}"# }, expected: [200, 200, 200, 200, 200, 200, 200]),
        // §3.1: a code taken by any family's parent goes into that family; the device's claim
        // before then says only that it waits.
        Endpoint(name: "POST /v1/sign-ins", method: .post, uri: { _ in "/v1/sign-ins" }, json: { _ in #"{"device":\#(device)}"# }, expected: [201, 201, 201, 201, 201, 201, 201]),
        Endpoint(name: "POST /v1/sign-ins/claim", method: .post, uri: { _ in "/v1/sign-ins/claim" }, json: { #"{"secret":"\#($0.signInSecret)"}"# }, expected: [200, 200, 200, 200, 200, 200, 200]),
        Endpoint(name: "POST /v1/pairings/sign-in", method: .post, uri: { _ in "/v1/pairings/sign-in" }, json: { #"{"code":"\#($0.signInCode)"}"# }, expected: [201, 403, 403, 401, 201, 401, 403]),
        Endpoint(name: "POST /v1/pairings/{awaiting's}/confirm", method: .post, uri: { "/v1/pairings/\($0.awaitingPairingID.lowercased)/confirm" }, expected: [200, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "POST /v1/pairings/{awaiting's}/reject", method: .post, uri: { "/v1/pairings/\($0.awaitingPairingID.lowercased)/reject" }, expected: [200, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "DELETE /v1/pairings/{pending}", method: .delete, uri: { "/v1/pairings/\($0.pendingPairingID.lowercased)" }, expected: [200, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/zones", method: .get, uri: { _ in "/v1/zones" }, expected: [200, 200, 403, 401, 200, 401, 200]),
        Endpoint(name: "POST /v1/zones", method: .post, uri: { _ in "/v1/zones" }, json: { _ in #"{"zoneName":"extra"}"# }, expected: [201, 403, 403, 401, 201, 401, 403]),
        Endpoint(name: "DELETE /v1/zones/{revoked child's zone}", method: .delete, uri: { "/v1/zones/child-\($0.revoked.deviceID.lowercased)" }, expected: [204, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/zones/{child zone}/changes", method: .get, uri: { "/v1/zones/\($0.childZone)/changes" }, expected: [200, 200, 403, 401, 404, 401, 404]),
        Endpoint(name: "POST /v1/zones/{child zone}/records/modify", method: .post, uri: { "/v1/zones/\($0.childZone)/records/modify" }, json: { _ in
            #"{"operations":[{"operationType":"create","record":{"recordName":"app","recordType":"AppConfiguration","fields":{"logicalID":"a","displayName":"A","category":"reward","isEnabled":true,"blockingEnabled":true}}}]}"#
        }, expected: [200, 200, 403, 401, 404, 401, 404]),
        Endpoint(name: "POST /v1/zones/{child zone}/records/lookup", method: .post, uri: { "/v1/zones/\($0.childZone)/records/lookup" }, json: { _ in #"{"recordNames":["app"]}"# }, expected: [200, 200, 403, 401, 404, 401, 404]),
        Endpoint(name: "POST /v1/zones/{child zone}/records/query", method: .post, uri: { "/v1/zones/\($0.childZone)/records/query" }, json: { _ in #"{"recordType":"AppConfiguration"}"# }, expected: [200, 200, 403, 401, 404, 401, 404]),
        // A zone the caller may not see is a per-zone ZONE_NOT_FOUND in a 200 (§5.5), exactly as
        // a zone that does not exist: MultiZoneChangesTests holds the entries to that.
        Endpoint(name: "POST /v1/changes/zones", method: .post, uri: { _ in "/v1/changes/zones" }, json: { #"{"zones":[{"zoneName":"\#($0.childZone)"},{"zoneName":"family"}]}"# },
                 expected: [200, 200, 403, 401, 200, 401, 200], echoed: { [#""zoneName":"\#($0.childZone)""#] }),
        Endpoint(name: "GET /v1/changes", method: .get, uri: { _ in "/v1/changes" }, expected: [200, 200, 200, 401, 200, 401, 200]),
        Endpoint(name: "GET /v1/poll", method: .get, uri: { _ in "/v1/poll?timeout=0" }, expected: [200, 200, 200, 401, 200, 401, 200]),
        // The poll carrying a heartbeat (§6, §10): a tracked device's, as the heartbeat's own route.
        Endpoint(name: "POST /v1/poll", method: .post, uri: { _ in "/v1/poll?timeout=0" }, json: { _ in
            #"{"heartbeatAt":"2026-11-18T11:06:00.000Z","monitoringActive":true}"#
        }, expected: [403, 200, 403, 401, 403, 401, 200]),
        Endpoint(name: "POST /v1/devices/{child}/commands", method: .post, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/commands" }, json: { _ in #"{"commandType":"request_sync"}"# }, expected: [201, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/devices/{child}/commands", method: .get, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/commands" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "POST /v1/commands/{id}/result", method: .post, uri: { "/v1/commands/\($0.commandID)/result" }, json: { _ in #"{"status":"executed"}"# }, expected: [403, 200, 403, 401, 403, 401, 404]),
        Endpoint(name: "POST /v1/usage", method: .post, uri: { _ in "/v1/usage" }, json: { _ in
            #"{"records":[{"recordID":"\#(UUID().lowercased)","logicalID":"a","displayName":"A","category":"learning","sessionStart":"2026-11-17T10:00:00.000Z","sessionEnd":"2026-11-17T10:05:00.000Z","totalSeconds":300}]}"#
        }, expected: [403, 200, 403, 401, 403, 401, 200]),
        Endpoint(name: "POST /v1/usage/totals", method: .post, uri: { _ in "/v1/usage/totals" }, json: { _ in
            #"{"date":"2026-11-18","apps":[{"logicalID":"a","displayName":"A","category":"social_media","totalSeconds":300}]}"#
        }, expected: [403, 200, 403, 401, 403, 401, 200]),
        Endpoint(name: "POST /v1/devices/me/health", method: .post, uri: { _ in "/v1/devices/me/health" }, json: { _ in
            #"{"heartbeatAt":"2026-11-18T11:06:00.000Z","monitoringActive":true}"#
        }, expected: [403, 200, 403, 401, 403, 401, 200]),
        Endpoint(name: "PUT /v1/devices/me/push", method: .put, uri: { _ in "/v1/devices/me/push" }, json: { _ in
            #"{"provider":"apns","token":"\#(String(repeating: "ab", count: 32))","topic":"com.example.screentime","environment":"sandbox"}"#
        }, expected: [204, 204, 403, 401, 204, 401, 204]),
        Endpoint(name: "DELETE /v1/devices/me/push", method: .delete, uri: { _ in "/v1/devices/me/push" }, expected: [204, 204, 403, 401, 204, 401, 204]),
        Endpoint(name: "GET /v1/devices/{child}/health", method: .get, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/health" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/devices/{child}/shield-state", method: .get, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/shield-state" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/devices/{child}/summaries", method: .get, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/summaries?from=2026-11-01&to=2026-11-07" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/devices/{child}/usage", method: .get, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/usage?from=2026-11-01T00:00:00Z&to=2026-11-07T00:00:00Z" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/devices/{child}/report", method: .get, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/report?from=2026-11-01&to=2026-11-07&granularity=week" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "POST /v1/commands/{id}/cancel", method: .post, uri: { "/v1/commands/\($0.commandID)/cancel" }, expected: [200, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/members", method: .get, uri: { _ in "/v1/members" }, expected: [200, 200, 403, 401, 200, 401, 200]),
        Endpoint(name: "POST /v1/members", method: .post, uri: { _ in "/v1/members" }, json: { _ in #"{"name":"Grandma","role":"parent"}"# }, expected: [201, 403, 403, 401, 201, 401, 403]),
        Endpoint(name: "PATCH /v1/members/{child's}", method: .patch, uri: { "/v1/members/\($0.childMemberID.lowercased)" }, json: { _ in #"{"name":"Jo"}"# }, expected: [200, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "DELETE /v1/members/{child's}", method: .delete, uri: { "/v1/members/\($0.childMemberID.lowercased)" }, expected: [204, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "POST /v1/devices/{child}/member", method: .post, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/member" }, json: { #"{"memberId":"\#($0.siblingMemberID.lowercased)"}"# }, expected: [200, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/members/{child's}/summaries", method: .get, uri: { "/v1/members/\($0.childMemberID.lowercased)/summaries?from=2026-11-01&to=2026-11-07" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/members/{child's}/report", method: .get, uri: { "/v1/members/\($0.childMemberID.lowercased)/report?from=2026-11-01&to=2026-11-07" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/members/{child's}/budget-status", method: .get, uri: { "/v1/members/\($0.childMemberID.lowercased)/budget-status?date=2026-11-03" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/members/{child's}/alerts", method: .get, uri: { "/v1/members/\($0.childMemberID.lowercased)/alerts?from=2026-11-01&to=2026-11-07" }, expected: [200, 200, 403, 401, 404, 401, 403]),
        Endpoint(name: "PUT /v1/members/{child's}/pin", method: .put, uri: { "/v1/members/\($0.childMemberID.lowercased)/pin" }, json: { _ in #"{"pin":"2468"}"# }, expected: [204, 403, 403, 401, 404, 401, 403]),
        // The fixture's child has no PIN: the parent's clear is 404 (ParentPINTests clears a set one).
        Endpoint(name: "DELETE /v1/members/{child's}/pin", method: .delete, uri: { "/v1/members/\($0.childMemberID.lowercased)/pin" }, expected: [404, 403, 403, 401, 404, 401, 403]),
        // Only the member's own devices try a PIN; the fixture's child has none set, so it gets as
        // far as that 404.
        Endpoint(name: "POST /v1/members/{child's}/pin/verify", method: .post, uri: { "/v1/members/\($0.childMemberID.lowercased)/pin/verify" }, json: { _ in #"{"pin":"2468"}"# }, expected: [403, 404, 403, 401, 403, 401, 403]),
        // No alert of that id: a parent is told so; nobody else gets that far.
        Endpoint(name: "POST /v1/alerts/{id}/dismiss", method: .post, uri: { _ in "/v1/alerts/\(UUID().lowercased)/dismiss" }, expected: [404, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "POST /v1/alerts", method: .post, uri: { _ in "/v1/alerts" }, json: { _ in
            #"{"clientAlertID":"\#(UUID().lowercased)","kind":"threshold","category":"gaming","usedMinutes":5,"message":"Five minutes of games"}"#
        }, expected: [403, 201, 403, 401, 403, 401, 201]),
        // A wrong code: the same 404 for everyone, whether or not a family exists (§13).
        Endpoint(name: "POST /v1/families/recover", method: .post, uri: { _ in "/v1/families/recover" }, json: { _ in #"{"recoveryCode":"AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA","device":\#(device)}"# }, expected: [404, 404, 404, 404, 404, 404, 404]),
        Endpoint(name: "POST /v1/families/me/recovery-code", method: .post, uri: { _ in "/v1/families/me/recovery-code" }, expected: [200, 403, 403, 401, 200, 401, 403]),
        // Without --apple-client-ids (as here) Sign in with Apple answers 404 to a parent (§13).
        Endpoint(name: "POST /v1/account/apple", method: .post, uri: { _ in "/v1/account/apple" }, json: { _ in #"{"identityToken":"x.y.z","nonce":"n"}"# }, expected: [404, 403, 403, 401, 404, 401, 403]),
        // §15: a family's data rights are its parents' alone; a child reads nothing of the audit log.
        Endpoint(name: "GET /v1/families/me/retention", method: .get, uri: { _ in "/v1/families/me/retention" }, expected: [200, 403, 403, 401, 200, 401, 403]),
        Endpoint(name: "PUT /v1/families/me/retention", method: .put, uri: { _ in "/v1/families/me/retention" }, json: { _ in #"{"days":{"alerts":30}}"# }, expected: [200, 403, 403, 401, 200, 401, 403]),
        Endpoint(name: "GET /v1/audit", method: .get, uri: { _ in "/v1/audit" }, expected: [200, 403, 403, 401, 200, 401, 403]),
        Endpoint(name: "GET /v1/families/me/export", method: .get, uri: { _ in "/v1/families/me/export" }, expected: [200, 403, 403, 401, 200, 401, 403]),
        Endpoint(name: "GET /v1/members/{child's}/export", method: .get, uri: { "/v1/members/\($0.childMemberID.lowercased)/export" }, expected: [200, 403, 403, 401, 404, 401, 403]),
        Endpoint(name: "GET /v1/audit/reads", method: .get, uri: { _ in "/v1/audit/reads?from=2026-11-01&to=2026-11-07" }, expected: [200, 403, 403, 401, 200, 401, 403]),
        // §10.1: the operator's alone; a family's credential is not even looked up.
        Endpoint(name: "GET /v1/fleet/tracking-report", method: .get, uri: { _ in "/v1/fleet/tracking-report" }, expected: [401, 401, 401, 401, 401, 401, 401], operatorExpected: 200),
    ]

    struct Cell: Sendable, CustomStringConvertible {
        var endpoint: Endpoint
        var caller: Caller
        var expected: Int
        var description: String { "\(endpoint.name) as \(caller.rawValue) → \(expected)" }
    }

    static let cells: [Cell] = endpoints.flatMap { endpoint in
        zip(Caller.allCases, endpoint.expected + [endpoint.operatorExpected ?? endpoint.expected[5]]).map { Cell(endpoint: endpoint, caller: $0, expected: $1) }
    }

    /// The rows are the router's own table: a route added without its row (or a row left for a
    /// route that went) fails here. Parameters are compared by position, whatever the row calls them.
    @Test func everyServedRouteHasARowOfEveryCaller() {
        func shape(_ route: String) -> String { route.replacing(/\{[^}]*\}/, with: "{}") }
        let served = Set(servedRoutes().filter { $0.key.hasPrefix("/v1/") }.flatMap { path, methods in methods.map { shape("\($0) \(path)") } })
        let rows = Set(Self.endpoints.map { shape($0.name) })
        #expect(rows == served, "served without a row: \(served.subtracting(rows).sorted()); rows of nothing served: \(rows.subtracting(served).sorted())")
        #expect(Self.endpoints.allSatisfy { $0.expected.count == Caller.allCases.count - 1 })
    }

    /// Every cell of one caller's column, on one server, each cell on a fresh fixture (families do
    /// not see each other, so fixtures share the database): 7 databases instead of one a cell,
    /// which keeps the suite's other tests from queueing behind the matrix for a test server.
    /// In the Citus pass the server refuses any statement that runs on more than one shard
    /// (`TestCitus.oneShardOnly`), so every family's endpoint, and every fixture, is held to
    /// rule 2; the few endpoints that cross shards by design go to a second server.
    @Test(arguments: Caller.allCases)
    func column(_ caller: Caller) async throws {
        try await withTestServer(databaseSession: TestCitus.oneShardOnly) { server in
            guard TestCitus.isActive else {
                for cell in Self.cells where cell.caller == caller { try await Self.check(cell, on: server) }
                return
            }
            try await withTestServer(databaseURL: server.databaseURL) { crossing in
                for cell in Self.cells where cell.caller == caller {
                    try await Self.check(cell, on: Self.crossesShards.contains(cell.endpoint.name) ? crossing : server)
                }
            }
        }
    }

    /// The endpoints with a statement over every shard of a table, by design (docs/operations.md,
    /// "Two-phase commits"): a lookup table of its own key (recovery codes, sign-ins) cleared of
    /// a family's rows, a push token taken from whichever family held it, the fleet's report.
    static let crossesShards: Set<String> = [
        "DELETE /v1/families/me", "POST /v1/families/me/recovery-code", "DELETE /v1/members/{child's}", "PUT /v1/devices/me/push",
        "GET /v1/fleet/tracking-report",
    ]

    static func check(_ cell: Cell, on server: TestServer) async throws {
        let fixture = try await FamilyFixture.make(server)
        let credential: String? = switch cell.caller {
        case .parent: fixture.parent.credential
        case .child: fixture.child.credential
        case .awaiting: fixture.awaiting.credential
        case .revoked: fixture.revoked.credential
        case .otherFamilyParent: fixture.otherParent.credential
        case .noCredential: nil
        case .sibling: fixture.sibling.credential
        case .operator: TestServer.operatorToken
        }
        let reply = try await server.send(cell.endpoint.method, cell.endpoint.uri(fixture), credential: credential, json: cell.endpoint.json(fixture))
        #expect(Int(reply.status.code) == cell.expected, "\(cell): \(String(buffer: reply.body))")
        if cell.expected >= 400 {
            #expect(!reply.errorCode.isEmpty, "\(cell): not a §1.1 body")
        }
        // Ids are lowercase on output (§1), whoever asks and whatever the answer.
        for (part, text) in try Self.parts(of: reply) {
            let upper = Self.upperCaseIDs(in: text)
            #expect(upper.isEmpty, "\(cell): \(part) has ids in upper case: \(upper)")
        }
        // Another family, and nobody, learn nothing of family A: not even its ids. (Accepting
        // is the exception by design: holding the token is being invited into family A.)
        var answer = String(buffer: reply.body)
        for echo in cell.endpoint.echoed(fixture) { answer = answer.replacingOccurrences(of: echo, with: "") }
        let outsider = [.otherFamilyParent, .noCredential, .revoked, .operator].contains(cell.caller)
        if outsider, cell.endpoint.name != "POST /v1/pairings/accept" {
            let body = answer.lowercased()
            for id in fixture.familyAIDs {
                #expect(!body.contains(id.lowercased), "\(cell): the answer names family A's \(id)")
            }
        }
        // A sibling learns nothing of the child: not its device, not its member (§8).
        if cell.caller == .sibling {
            let body = answer.lowercased()
            for id in [fixture.child.deviceID, fixture.childMemberID] {
                #expect(!body.contains(id.lowercased), "\(cell): a sibling's answer names the child's \(id)")
            }
        }
    }

    /// An answer as text, part by part: each header, and the body, or each file of an archive.
    static func parts(of reply: TestServer.Reply) throws -> [(name: String, text: String)] {
        let headers = reply.headers.map { (name: "header \($0.name)", text: $0.value) }
        guard reply.headers[.contentType] == "application/x-tar" else { return headers + [("body", String(buffer: reply.body))] }
        return headers + (try ExportTests.entries(Array(reply.body.readableBytesView)).map { ("archive's \($0.name)", $0.text) })
    }

    /// The UUID-shaped strings of `text` that have an upper-case hex digit.
    static func upperCaseIDs(in text: String) -> [String] {
        text.matches(of: /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/).map { String($0.output) }.filter { $0.contains(where: \.isUppercase) }
    }
}
