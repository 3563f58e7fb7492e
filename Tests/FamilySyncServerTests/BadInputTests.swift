import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import HTTPTypes
import Foundation
import PostgresNIO
import Testing

/// Every bad input gets its documented error and leaves the database exactly as it was.
@Suite struct BadInputTests {
    enum Caller: Sendable { case none, parent, child, awaiting, otherParent }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var method: HTTPRequest.Method
        var uri: @Sendable (FamilyFixture) -> String
        var caller: Caller
        var json: String?
        var status: HTTPResponse.Status
        var code: String
        var field: String? = nil
    }

    static let device = #"{"name":"Tablet","platform":"ipados","timeZone":"Europe/Berlin"}"#

    static let cases: [Case] = [
        Case(description: "malformed device id", method: .patch, uri: { _ in "/v1/devices/not-a-uuid" }, caller: .parent, json: #"{"name":"x"}"#, status: .badRequest, code: "BAD_REQUEST", field: "id"),
        Case(description: "unknown device id", method: .patch, uri: { _ in "/v1/devices/\(UUID().lowercased)" }, caller: .parent, json: #"{"name":"x"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "another family's device", method: .patch, uri: { "/v1/devices/\($0.otherParent.deviceID.lowercased)" }, caller: .parent, json: #"{"name":"x"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "another family's device, revoked", method: .delete, uri: { "/v1/devices/\($0.otherParent.deviceID.lowercased)" }, caller: .parent, status: .notFound, code: "NOT_FOUND"),
        Case(description: "malformed pairing id", method: .get, uri: { _ in "/v1/pairings/123" }, caller: .parent, status: .badRequest, code: "BAD_REQUEST", field: "id"),
        Case(description: "confirm by a child", method: .post, uri: { "/v1/pairings/\($0.awaitingPairingID.lowercased)/confirm" }, caller: .child, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "confirm of another family's pairing", method: .post, uri: { "/v1/pairings/\($0.otherPairingID.lowercased)/confirm" }, caller: .parent, status: .notFound, code: "NOT_FOUND"),
        Case(description: "confirm twice", method: .post, uri: { "/v1/pairings/\($0.childPairingID.lowercased)/confirm" }, caller: .parent, status: .conflict, code: "CONFLICT"),
        Case(description: "confirm before accept", method: .post, uri: { "/v1/pairings/\($0.pendingPairingID.lowercased)/confirm" }, caller: .parent, status: .conflict, code: "CONFLICT"),
        Case(description: "revoke an accepted pairing", method: .delete, uri: { "/v1/pairings/\($0.awaitingPairingID.lowercased)" }, caller: .parent, status: .conflict, code: "CONFLICT"),
        Case(description: "ttlSeconds too small", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","ttlSeconds":59}"#, status: .badRequest, code: "BAD_REQUEST", field: "ttlSeconds"),
        Case(description: "ttlSeconds too large", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","ttlSeconds":86401}"#, status: .badRequest, code: "BAD_REQUEST", field: "ttlSeconds"),
        Case(description: "ttlSeconds not a number", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","ttlSeconds":"600"}"#, status: .badRequest, code: "BAD_REQUEST", field: "ttlSeconds"),
        Case(description: "unknown role", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"grandparent"}"#, status: .badRequest, code: "BAD_REQUEST", field: "role"),
        Case(description: "child name for a co-parent", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"parent","childName":"Jo"}"#, status: .badRequest, code: "BAD_REQUEST", field: "childName"),
        Case(description: "oversize child name", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","childName":"\#(String(repeating: "n", count: 101))"}"#, status: .badRequest, code: "BAD_REQUEST", field: "childName"),
        Case(description: "unknown member in pairing", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","color":"red"}"#, status: .badRequest, code: "BAD_REQUEST", field: "color"),
        Case(description: "oversize device name", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{"device":{"name":"\#(String(repeating: "x", count: 101))","platform":"ios","timeZone":"UTC"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "device.name"),
        Case(description: "empty device name", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{"device":{"name":"   ","platform":"ios","timeZone":"UTC"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "device.name"),
        Case(description: "platform not in the list", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{"device":{"name":"Phone","platform":"symbian","timeZone":"UTC"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "device.platform"),
        Case(description: "invalid time zone", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{"device":{"name":"Phone","platform":"ios","timeZone":"Mars/Olympus"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "device.timeZone"),
        Case(description: "unknown nested member", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{"device":{"name":"Phone","platform":"ios","timeZone":"UTC","model":"X"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "device.model"),
        Case(description: "missing device", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{}"#, status: .badRequest, code: "BAD_REQUEST", field: "device"),
        Case(description: "body not an object", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"[1,2]"#, status: .badRequest, code: "BAD_REQUEST"),
        Case(description: "invalid time zone in update", method: .patch, uri: { _ in "/v1/devices/me" }, caller: .child, json: #"{"timeZone":"CET+1"}"#, status: .badRequest, code: "BAD_REQUEST", field: "timeZone"),
        Case(description: "null time zone in update", method: .patch, uri: { _ in "/v1/devices/me" }, caller: .child, json: #"{"timeZone":null}"#, status: .badRequest, code: "BAD_REQUEST", field: "timeZone"),
        Case(description: "null name beside a real change", method: .patch, uri: { _ in "/v1/devices/me" }, caller: .parent, json: #"{"name":null,"timeZone":"UTC"}"#, status: .badRequest, code: "BAD_REQUEST", field: "name"),
        Case(description: "unknown member whose value is null", method: .post, uri: { _ in "/v1/zones" }, caller: .parent, json: #"{"zoneName":"r9","":null}"#, status: .badRequest, code: "BAD_REQUEST", field: ""),
        Case(description: "unknown nested member whose value is null", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{"device":{"name":"Phone","platform":"ios","timeZone":"UTC","model":null}}"#, status: .badRequest, code: "BAD_REQUEST", field: "device.model"),
        Case(description: "a member named twice", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{"device":\#(device),"device":\#(device)}"#, status: .badRequest, code: "BAD_REQUEST", field: "device"),
        Case(description: "a nested member named twice", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{"device":{"name":"P","name":"Q","platform":"ios","timeZone":"UTC"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "device.name"),
        Case(description: "a number too large for any type", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","ttlSeconds":1e309}"#, status: .badRequest, code: "BAD_REQUEST", field: "ttlSeconds"),
        Case(description: "ttlSeconds with a fraction", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","ttlSeconds":600.5}"#, status: .badRequest, code: "BAD_REQUEST", field: "ttlSeconds"),
        Case(description: "a lone surrogate", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","childName":"Jo\ud800"}"#, status: .badRequest, code: "BAD_REQUEST"),
        Case(description: "null ttlSeconds", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","ttlSeconds":null}"#, status: .badRequest, code: "BAD_REQUEST", field: "ttlSeconds"),
        Case(description: "empty update", method: .patch, uri: { _ in "/v1/devices/me" }, caller: .parent, json: #"{}"#, status: .badRequest, code: "BAD_REQUEST"),
        Case(description: "child renaming its child name", method: .patch, uri: { _ in "/v1/devices/me" }, caller: .child, json: #"{"childName":"Boss"}"#, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "child name on a parent", method: .patch, uri: { "/v1/devices/\($0.parent.deviceID.lowercased)" }, caller: .parent, json: #"{"childName":"Me"}"#, status: .badRequest, code: "BAD_REQUEST", field: "childName"),
        // Signing in by a shown code (§3.1).
        Case(description: "sign-in without a device", method: .post, uri: { _ in "/v1/sign-ins" }, caller: .none, json: #"{}"#, status: .badRequest, code: "BAD_REQUEST", field: "device"),
        Case(description: "sign-in of a platform not in the list", method: .post, uri: { _ in "/v1/sign-ins" }, caller: .none, json: #"{"device":{"name":"B","platform":"netscape","timeZone":"UTC"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "device.platform"),
        Case(description: "sign-in with an unknown member", method: .post, uri: { _ in "/v1/sign-ins" }, caller: .none, json: #"{"device":\#(device),"code":"AAAA-AAAA"}"#, status: .badRequest, code: "BAD_REQUEST", field: "code"),
        Case(description: "claim without a secret", method: .post, uri: { _ in "/v1/sign-ins/claim" }, caller: .none, json: #"{}"#, status: .badRequest, code: "BAD_REQUEST", field: "secret"),
        Case(description: "claim with a number for a secret", method: .post, uri: { _ in "/v1/sign-ins/claim" }, caller: .none, json: #"{"secret":42}"#, status: .badRequest, code: "BAD_REQUEST", field: "secret"),
        Case(description: "claim with a secret that is not one", method: .post, uri: { _ in "/v1/sign-ins/claim" }, caller: .none, json: #"{"secret":"letmein"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "claim with the code as the secret", method: .post, uri: { _ in "/v1/sign-ins/claim" }, caller: .none, json: #"{"secret":"fw1.AAAAAAAA.\#(String(repeating: "A", count: 43))"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "take with neither code nor payload", method: .post, uri: { _ in "/v1/pairings/sign-in" }, caller: .parent, json: #"{}"#, status: .badRequest, code: "BAD_REQUEST", field: "code"),
        Case(description: "take with both code and payload", method: .post, uri: { _ in "/v1/pairings/sign-in" }, caller: .parent, json: #"{"code":"AAAA-AAAA","qrPayload":"familysync://sign-in?v=1&s=x&c=AAAAAAAA"}"#, status: .badRequest, code: "BAD_REQUEST", field: "qrPayload"),
        Case(description: "take of a code too short", method: .post, uri: { _ in "/v1/pairings/sign-in" }, caller: .parent, json: #"{"code":"ABC-DEF"}"#, status: .badRequest, code: "BAD_REQUEST", field: "code"),
        Case(description: "take of a code with a character base32 has not", method: .post, uri: { _ in "/v1/pairings/sign-in" }, caller: .parent, json: #"{"code":"ABCD-EFG1"}"#, status: .badRequest, code: "BAD_REQUEST", field: "code"),
        Case(description: "take of a pairing's QR payload", method: .post, uri: { "/v1/pairings/sign-in?p=\($0.pendingPairingID)" }, caller: .parent, json: #"{"qrPayload":"familysync://pair?v=1&s=x&c=AAAAAAAA"}"#, status: .badRequest, code: "BAD_REQUEST", field: "qrPayload"),
        Case(description: "take of a code nobody shows", method: .post, uri: { _ in "/v1/pairings/sign-in" }, caller: .parent, json: #"{"code":"2222-2222"}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "take by a child", method: .post, uri: { _ in "/v1/pairings/sign-in" }, caller: .child, json: #"{"code":"2222-2222"}"#, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "take by a device awaiting confirmation", method: .post, uri: { _ in "/v1/pairings/sign-in" }, caller: .awaiting, json: #"{"code":"2222-2222"}"#, status: .forbidden, code: "ACCESS_DENIED"),
        Case(description: "purge not a boolean", method: .delete, uri: { "/v1/devices/\($0.child.deviceID.lowercased)?purge=yes" }, caller: .parent, status: .badRequest, code: "BAD_REQUEST", field: "purge"),
        Case(description: "unknown pairing status filter", method: .get, uri: { _ in "/v1/pairings?status=sleeping" }, caller: .parent, status: .badRequest, code: "BAD_REQUEST", field: "status"),
        Case(description: "accept with neither payload nor id", method: .post, uri: { _ in "/v1/pairings/accept" }, caller: .none, json: #"{"device":\#(device)}"#, status: .badRequest, code: "BAD_REQUEST"),
        Case(description: "malformed QR payload", method: .post, uri: { _ in "/v1/pairings/accept" }, caller: .none, json: #"{"qrPayload":"https://example.com/?p=1","device":\#(device)}"#, status: .badRequest, code: "BAD_REQUEST", field: "qrPayload"),
        Case(description: "accept with both payload and id", method: .post, uri: { "/v1/pairings/accept?x=\($0.pendingPairingID)" }, caller: .none, json: #"{"qrPayload":"familysync://pair?v=1","pairingId":"\#(UUID().lowercased)","token":"t","device":\#(device)}"#, status: .badRequest, code: "BAD_REQUEST"),
        Case(description: "accept of an unknown pairing", method: .post, uri: { _ in "/v1/pairings/accept" }, caller: .none, json: #"{"pairingId":"\#(UUID().lowercased)","token":"fp1.\#(UUID().lowercased).\#(String(repeating: "A", count: 43))","device":\#(device)}"#, status: .notFound, code: "NOT_FOUND"),
        Case(description: "accept with a token that is not one", method: .post, uri: { "/v1/pairings/accept?p=\($0.pendingPairingID)" }, caller: .none, json: #"{"pairingId":"\#(UUID().lowercased)","token":"letmein","device":\#(device)}"#, status: .notFound, code: "NOT_FOUND"),
        // A NUL (\u0000) in any string, a value or a member's name: PostgreSQL's text cannot hold one.
        Case(description: "a NUL in a command's payload", method: .post, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/commands" }, caller: .parent, json: #"{"commandType":"x-note","payload":{"note":"a\u0000b"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload.note"),
        Case(description: "a NUL in an unblock's logicalIDs", method: .post, uri: { "/v1/devices/\($0.child.deviceID.lowercased)/commands" }, caller: .parent, json: #"{"commandType":"unblock","payload":{"logicalIDs":["\u0000"]}}"#, status: .badRequest, code: "BAD_REQUEST", field: "payload.logicalIDs[0]"),
        Case(description: "a NUL in a record's field", method: .post, uri: { "/v1/zones/\($0.childZone)/records/modify" }, caller: .parent, json: #"{"operations":[{"operationType":"create","record":{"recordName":"app","recordType":"AppConfiguration","fields":{"logicalID":"a","displayName":"A\u0000","category":"reward","isEnabled":true,"blockingEnabled":true}}}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.fields.displayName"),
        Case(description: "a NUL in a custom record's field name", method: .post, uri: { "/v1/zones/\($0.childZone)/records/modify" }, caller: .parent, json: #"{"operations":[{"operationType":"create","record":{"recordName":"n","recordType":"x-note","fields":{"a\u0000":1}}}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.fields.a\u{0}"),
        Case(description: "a NUL in a record type", method: .post, uri: { "/v1/zones/\($0.childZone)/records/modify" }, caller: .parent, json: #"{"operations":[{"operationType":"create","record":{"recordName":"n","recordType":"x-\u0000","fields":{}}}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.recordType"),
        Case(description: "a NUL in a query's record type", method: .post, uri: { "/v1/zones/\($0.childZone)/records/query" }, caller: .parent, json: #"{"recordType":"App\u0000"}"#, status: .badRequest, code: "BAD_REQUEST", field: "recordType"),
        Case(description: "a NUL in a usage record's display name", method: .post, uri: { _ in "/v1/usage" }, caller: .child, json: #"{"records":[{"recordID":"\#(UUID().lowercased)","logicalID":"a","displayName":"A\u0000","category":"learning","sessionStart":"2026-11-17T10:00:00.000Z","sessionEnd":"2026-11-17T10:05:00.000Z","totalSeconds":300}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "records[0].displayName"),
        Case(description: "a NUL in a daily total's logicalID", method: .post, uri: { _ in "/v1/usage/totals" }, caller: .child, json: #"{"date":"2026-11-18","apps":[{"logicalID":"\u0000","displayName":"A","category":"social_media","totalSeconds":300}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "apps[0].logicalID"),
        Case(description: "a NUL in an alert's message", method: .post, uri: { _ in "/v1/alerts" }, caller: .child, json: #"{"clientAlertID":"\#(UUID().lowercased)","kind":"threshold","category":"gaming","usedMinutes":5,"message":"Five\u0000"}"#, status: .badRequest, code: "BAD_REQUEST", field: "message"),
        Case(description: "a NUL in a health report's error", method: .post, uri: { _ in "/v1/devices/me/health" }, caller: .child, json: #"{"heartbeatAt":"2026-11-18T11:06:00.000Z","monitoringActive":true,"errors":[{"id":"\#(UUID().lowercased)","timestamp":"2026-11-18T11:05:00.000Z","eventName":"intervalDidStart","action":"record_usage","success":false,"errorDescription":"x\u0000","memoryUsageMB":5}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "errors[0].errorDescription"),
        Case(description: "a NUL as the whole body", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #""\u0000""#, status: .badRequest, code: "BAD_REQUEST"),
        Case(description: "an integer a record's fields cannot keep", method: .post, uri: { "/v1/zones/\($0.childZone)/records/modify" }, caller: .parent, json: #"{"operations":[{"operationType":"create","record":{"recordName":"n","recordType":"x-note","fields":{"big":9007199254740993}}}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.fields.big"),
        Case(description: "an integer a record's fields cannot keep, in an array", method: .post, uri: { "/v1/zones/\($0.childZone)/records/modify" }, caller: .parent, json: #"{"operations":[{"operationType":"create","record":{"recordName":"n","recordType":"x-note","fields":{"list":[1,-12345678901234567890]}}}]}"#, status: .badRequest, code: "BAD_REQUEST", field: "operations[0].record.fields.list[1]"),
        Case(description: "a zone name of dots alone", method: .post, uri: { _ in "/v1/zones" }, caller: .parent, json: #"{"zoneName":".."}"#, status: .badRequest, code: "BAD_REQUEST", field: "zoneName"),
        Case(description: "a child name with a direction override", method: .post, uri: { _ in "/v1/pairings" }, caller: .parent, json: #"{"role":"child","childName":"Jo\u202Ehnny"}"#, status: .badRequest, code: "BAD_REQUEST", field: "childName"),
        Case(description: "a device name with a zero-width space", method: .post, uri: { _ in "/v1/families" }, caller: .none, json: #"{"device":{"name":"Mo\u200Bm","platform":"ios","timeZone":"UTC"}}"#, status: .badRequest, code: "BAD_REQUEST", field: "device.name"),
        Case(description: "an awaiting device creating a pairing", method: .post, uri: { _ in "/v1/pairings" }, caller: .awaiting, json: #"{"role":"child"}"#, status: .forbidden, code: "ACCESS_DENIED"),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ testCase: Case) async throws {
        try await withTestServer { server in
            let fixture = try await FamilyFixture.make(server)
            let credential: String? = switch testCase.caller {
            case .none: nil
            case .parent: fixture.parent.credential
            case .child: fixture.child.credential
            case .awaiting: fixture.awaiting.credential
            case .otherParent: fixture.otherParent.credential
            }
            // Authenticate once first, so that lastSeenAt is fresh and the request itself writes nothing.
            if let credential { _ = try await server.send(.get, "/v1/devices/me", credential: credential) }
            let before = try await server.fingerprint()
            let reply = try await server.send(testCase.method, testCase.uri(fixture), credential: credential, json: testCase.json)
            #expect(reply.status == testCase.status, "\(String(buffer: reply.body))")
            #expect(reply.errorCode == testCase.code)
            if let field = testCase.field { #expect(reply.error?.field == field) }
            #expect(try await server.fingerprint() == before)
        }
    }

    /// Time moves by the injected clock: the token of a pairing past its TTL is refused.
    @Test func anExpiredTokenIsGone() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let reply = try await server.send(.post, "/v1/pairings", credential: parent.credential, json: #"{"role":"child","ttlSeconds":60}"#)
            let invitation = try reply.decode(CreatePairingResponse.self)
            server.clock.advance(by: 60)
            let before = try await server.fingerprint()
            let accept = try await server.send(.post, "/v1/pairings/accept", json: #"{"qrPayload":"\#(invitation.qrPayload)","device":\#(Self.device)}"#)
            #expect(accept.status == .gone && accept.errorCode == "PAIRING_EXPIRED")
            #expect(try await server.fingerprint() == before)
            let listed = try await server.send(.get, "/v1/pairings?status=expired", credential: parent.credential).decode(PairingList.self)
            #expect(listed.pairings.map(\.id) == [invitation.pairing.id])
        }
    }

    /// Its pairing can no longer be confirmed, so the credential it was given while it waited is
    /// worth nothing: 401 on every route, as a revoked device's.
    @Test func aDeviceWhosePairingExpiredUnconfirmedLosesItsCredential() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (pairingID, awaiting) = try await server.pair(by: parent, confirm: false)
            #expect(try await server.send(.get, "/v1/devices/me", credential: awaiting.credential).status == .ok)
            server.clock.advance(by: 86_401)
            let confirm = try await server.send(.post, "/v1/pairings/\(pairingID.lowercased)/confirm", credential: parent.credential)
            #expect(confirm.status == .gone)
            for uri in ["/v1/devices/me", "/v1/changes", "/v1/poll?timeout=0"] {
                let reply = try await server.send(.get, uri, credential: awaiting.credential)
                #expect(reply.status == .unauthorized, "\(uri): \(String(buffer: reply.body))")
            }
        }
    }

    @Test func aReplayedAcceptIsGone() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let invitation = try await server.createPairing(by: parent)
            _ = try await server.accept(invitation)
            let before = try await server.fingerprint()
            let replay = try await server.send(.post, "/v1/pairings/accept", json: #"{"qrPayload":"\#(invitation.qrPayload)","device":\#(Self.device)}"#)
            #expect(replay.status == .gone && replay.errorCode == "PAIRING_EXPIRED")
            #expect(try await server.fingerprint() == before)
        }
    }

    /// Wrong tokens are the one failure that is recorded: four are counted, the fifth burns the
    /// pairing, and from then on even the right token is refused.
    @Test func fiveWrongTokensBurnThePairing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let invitation = try await server.createPairing(by: parent)
            let wrong = "fp1.\(parent.familyID.lowercased).\(String(repeating: "B", count: 43))"
            for attempt in 1...5 {
                let reply = try await server.send(.post, "/v1/pairings/accept", json: #"{"pairingId":"\#(invitation.pairing.id.lowercased)","token":"\#(wrong)","device":\#(Self.device)}"#)
                #expect(reply.status == .notFound && reply.errorCode == "NOT_FOUND", "attempt \(attempt)")
            }
            let pairing = try await server.send(.get, "/v1/pairings/\(invitation.pairing.id.lowercased)", credential: parent.credential).decode(PairingBody.self)
            #expect(pairing.status == .burned)
            let right = try await server.send(.post, "/v1/pairings/accept", json: #"{"qrPayload":"\#(invitation.qrPayload)","device":\#(Self.device)}"#)
            #expect(right.status == .gone && right.errorCode == "PAIRING_EXPIRED")
            let devices = try await server.send(.get, "/v1/devices", credential: parent.credential).decode(DeviceList.self)
            #expect(devices.devices.count == 1)
        }
    }

    @Test func aQRPayloadNamingAnotherParentIsAWrongToken() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let invitation = try await server.createPairing(by: parent)
            let forged = invitation.qrPayload.replacingOccurrences(of: "d=\(parent.deviceID.lowercased)", with: "d=\(UUID().lowercased)")
            let reply = try await server.send(.post, "/v1/pairings/accept", json: #"{"qrPayload":"\#(forged)","device":\#(Self.device)}"#)
            #expect(reply.status == .notFound)
        }
    }

    @Test func unauthenticatedEndpointsAreRateLimitedPerAddress() async throws {
        let configuration = ServerConfigurationForTests.limited(burst: 3, perMinute: 60)
        try await withTestServer(configuration: configuration) { server in
            for _ in 0..<3 {
                #expect(try await server.send(.post, "/v1/families", json: #"{"device":\#(Self.device)}"#).status == .created)
            }
            let throttled = try await server.send(.post, "/v1/pairings/accept", json: #"{"device":\#(Self.device)}"#)
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.errorCode == "THROTTLED")
            #expect(throttled.headers[.retryAfter] == "1")
            #expect(throttled.error?.retryAfter == 1)
            server.clock.advance(by: 1)
            #expect(try await server.send(.post, "/v1/families", json: #"{"device":\#(Self.device)}"#).status == .created)
        }
    }
}

enum ServerConfigurationForTests {
    static func limited(burst: Int, perMinute: Int) -> FamilySyncServer.ServerConfiguration {
        .init(port: 0, unauthenticatedRateLimit: RateLimit(burst: burst, perMinute: perMinute), readTallyInterval: .seconds(86_400))
    }
}
