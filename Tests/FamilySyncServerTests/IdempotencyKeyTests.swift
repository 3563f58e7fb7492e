import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// PROTOCOL §1.2.1: a write sent again with its `Idempotency-Key` is answered as the first time
/// and does nothing twice; the key is the device's own; a refused request keeps nothing.
@Suite struct IdempotencyKeyTests {
    static func keyed(_ key: String) -> [(String, String)] { [(IdempotencyKey.header, key)] }

    static func command(_ type: String = "block") -> String { #"{"commandType":"\#(type)"}"# }

    static func commands(_ server: TestServer, _ parent: TestDevice, _ child: TestDevice) async throws -> [CommandBody] {
        let reply = try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/commands", credential: parent.credential)
        return try reply.decode(CommandList.self).commands
    }

    @Test func aCommandSentTwiceIsMadeOnceAndAnsweredTheSame() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let uri = "/v1/devices/\(child.deviceID.lowercased)/commands", key = UUID().uuidString
            let first = try await server.send(.post, uri, credential: parent.credential, json: Self.command(), headers: Self.keyed(key))
            #expect(first.status == .created || first.status == .ok, "\(String(buffer: first.body))")
            #expect(first.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
            let again = try await server.send(.post, uri, credential: parent.credential, json: Self.command(), headers: Self.keyed(key))
            #expect(again.status == first.status)
            #expect(again.body == first.body)
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            #expect(try await Self.commands(server, parent, child).count == 1)
            // Without a key, the same body is another command.
            let unkeyed = try await server.send(.post, uri, credential: parent.credential, json: Self.command())
            #expect(unkeyed.status == first.status)
            #expect(try await Self.commands(server, parent, child).count == 2)
        }
    }

    /// A create sent again would be `EXISTS` with no key; with it, the first answer comes back.
    @Test func aSaveSentTwiceGetsItsFirstAnswer() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"settings","recordType":"x-note","fields":{"text":"hello"}}}]}"#
            let first = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: body, headers: Self.keyed("save-1"))
            #expect(first.status == .ok)
            let again = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: body, headers: Self.keyed("save-1"))
            #expect(again.status == .ok)
            #expect(again.body == first.body)
            let plain = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: body)
            #expect(plain.errorCode == "EXISTS")
        }
    }

    @Test func theSameKeyWithAnotherRequestIsRefusedAndChangesNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let uri = "/v1/devices/\(child.deviceID.lowercased)/commands"
            #expect(try await server.send(.post, uri, credential: parent.credential, json: Self.command(), headers: Self.keyed("k")).status.kind == .successful)
            let before = try await server.fingerprint()
            let other = try await server.send(.post, uri, credential: parent.credential, json: Self.command("unblock"), headers: Self.keyed("k"))
            #expect(other.status == .unprocessableContent)
            #expect(other.errorCode == "IDEMPOTENCY_KEY_REUSED")
            #expect(other.error?.field == IdempotencyKey.header)
            // Another target is another request too.
            let elsewhere = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: TestServer.write("family", "x"), headers: Self.keyed("k"))
            #expect(elsewhere.errorCode == "IDEMPOTENCY_KEY_REUSED")
            #expect(try await server.fingerprint() == before)
        }
    }

    /// Access is decided before the key: a request its caller may not make is 403 whatever the
    /// key was used for before, as the same request with a fresh key is.
    @Test func aRequestTheCallerMayNotMakeIs403WhateverItsKey() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let memberID = try await server.memberID(of: child)
            let usage = #"{"records":[{"recordID":"\#(UUID().lowercased)","logicalID":"a","displayName":"A","category":"learning","sessionStart":"2026-11-17T10:00:00.000Z","sessionEnd":"2026-11-17T10:05:00.000Z","totalSeconds":300}]}"#
            #expect(try await server.send(.post, "/v1/usage", credential: child.credential, json: usage, headers: Self.keyed("used")).status == .ok)
            let before = try await server.fingerprint()
            for key in ["used", "fresh"] {
                let pin = try await server.send(.put, "/v1/members/\(memberID.lowercased)/pin", credential: child.credential, json: #"{"pin":"2468"}"#, headers: Self.keyed(key))
                #expect(pin.status == .forbidden && pin.errorCode == "ACCESS_DENIED", "\(key): \(String(buffer: pin.body))")
            }
            #expect(try await server.fingerprint() == before)
        }
    }

    /// Keys are per device: another parent's same key is its own request, and a device of another
    /// family never gets an answer kept for this one.
    @Test func aKeyIsTheDevicesOwn() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, secondParent) = try await server.pair(by: parent, role: .parent)
            let stranger = try await server.createFamily()
            let uri = "/v1/devices/\(child.deviceID.lowercased)/commands"
            let first = try await server.send(.post, uri, credential: parent.credential, json: Self.command(), headers: Self.keyed("same"))
            let second = try await server.send(.post, uri, credential: secondParent.credential, json: Self.command(), headers: Self.keyed("same"))
            #expect(second.status == first.status)
            #expect(second.body != first.body)
            #expect(try await Self.commands(server, parent, child).count == 2)
            let foreign = try await server.send(.post, uri, credential: stranger.credential, json: Self.command(), headers: Self.keyed("same"))
            #expect(foreign.status == .notFound)
            #expect(!String(buffer: foreign.body).contains(child.deviceID.lowercased))
        }
    }

    /// A revoked device's resend is refused as any of its requests, not answered from its key.
    @Test func aRevokedDevicesResendIsRefused() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, secondParent) = try await server.pair(by: parent, role: .parent)
            let body = TestServer.write("family", "a")
            let first = try await server.send(.post, "/v1/zones/family/records/modify", credential: secondParent.credential, json: body, headers: Self.keyed("r"))
            #expect(first.status == .ok)
            let revoke = try await server.send(.delete, "/v1/devices/\(secondParent.deviceID.lowercased)", credential: parent.credential)
            #expect(revoke.status.kind == .successful)
            let again = try await server.send(.post, "/v1/zones/family/records/modify", credential: secondParent.credential, json: body, headers: Self.keyed("r"))
            #expect(again.status == .unauthorized)
        }
    }

    /// A refusal keeps nothing: the same key with the request put right is judged afresh.
    @Test func aRefusedRequestKeepsNoAnswer() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let uri = "/v1/devices/\(child.deviceID.lowercased)/commands"
            let before = try await server.fingerprint()
            let refused = try await server.send(.post, uri, credential: parent.credential, json: #"{"commandType":"reboot"}"#, headers: Self.keyed("fix"))
            #expect(refused.status == .badRequest)
            #expect(try await server.fingerprint() == before)
            let again = try await server.send(.post, uri, credential: parent.credential, json: #"{"commandType":"reboot"}"#, headers: Self.keyed("fix"))
            #expect(again.status == .badRequest)
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == nil)
        }
    }

    /// The same request twice at once: one effect; each answer is the first one's, or "still
    /// being answered" with a wait, never a second command.
    @Test func theSameRequestTwiceAtOnceIsMadeOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let uri = "/v1/devices/\(child.deviceID.lowercased)/commands"
            for round in 0..<5 {
                let key = "together-\(round)"
                let replies = try await withThrowingTaskGroup(of: TestServer.Reply.self) { group in
                    for _ in 0..<4 { group.addTask { try await server.send(.post, uri, credential: parent.credential, json: Self.command(), headers: Self.keyed(key)) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let made = replies.filter { $0.status.kind == .successful }
                #expect(!made.isEmpty)
                #expect(Set(made.map { String(buffer: $0.body) }).count == 1)
                for waiting in replies where waiting.status.kind != .successful {
                    #expect(waiting.status == .conflict)
                    #expect(waiting.error?.field == IdempotencyKey.header)
                    #expect(waiting.error?.retryAfter == 1)
                }
            }
            #expect(try await Self.commands(server, parent, child).count == 5)
        }
    }

    /// After 24 hours the key is free again.
    @Test func aKeyLastsADay() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let uri = "/v1/devices/\(child.deviceID.lowercased)/commands"
            _ = try await server.send(.post, uri, credential: parent.credential, json: Self.command(), headers: Self.keyed("day"))
            server.clock.advance(by: IdempotencyKey.lifetime - 60)
            let within = try await server.send(.post, uri, credential: parent.credential, json: Self.command("unblock"), headers: Self.keyed("day"))
            #expect(within.errorCode == "IDEMPOTENCY_KEY_REUSED")
            server.clock.advance(by: 120)
            let after = try await server.send(.post, uri, credential: parent.credential, json: Self.command("unblock"), headers: Self.keyed("day"))
            #expect(after.status.kind == .successful, "\(String(buffer: after.body))")
            #expect(try await Self.commands(server, parent, child).count == 2)
        }
    }

    /// The hourly job removes the keys past their day, and only those.
    @Test(.notOnCitus("the purge is every family's; in the Citus pass's shared database it would take the keys of tests running beside it"))
    func theHourlyJobRemovesKeysPastTheirDay() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let cutoff = { server.clock.now().addingTimeInterval(-IdempotencyKey.lifetime) }
            _ = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: TestServer.write("family", "a"), headers: Self.keyed("old"))
            server.clock.advance(by: 3600)
            _ = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: TestServer.write("family", "b"), headers: Self.keyed("new"))
            server.clock.advance(by: IdempotencyKey.lifetime - 3600 + 1)
            #expect(try await server.purgeIdempotencyKeys(before: cutoff()) == 1)
            // "new" is still kept: sent again it is answered, not run.
            let again = try await server.send(.post, "/v1/zones/family/records/modify", credential: parent.credential, json: TestServer.write("family", "b"), headers: Self.keyed("new"))
            #expect(again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            server.clock.advance(by: 3600)
            #expect(try await server.purgeIdempotencyKeys(before: cutoff()) == 1)
        }
    }

    struct BadKey: Sendable, CustomStringConvertible {
        var description: String
        var method: HTTPRequest.Method = .post
        var uri: @Sendable (TestDevice) -> String = { _ in "/v1/zones/family/records/modify" }
        var headers: [(String, String)]
        var json: String? = TestServer.write("family", "bad-key")
    }

    static let badKeys: [BadKey] = [
        BadKey(description: "an empty key", headers: keyed("")),
        BadKey(description: "a key of 256 characters", headers: keyed(String(repeating: "k", count: 256))),
        BadKey(description: "a key with a space", headers: keyed("a key")),
        BadKey(description: "a key with a slash", headers: keyed("a/b")),
        BadKey(description: "two keys", headers: keyed("one") + keyed("two")),
        BadKey(description: "a key on a read sent as POST", uri: { _ in "/v1/zones/family/records/query" }, headers: keyed("q"), json: #"{"recordType":"AppConfiguration"}"#),
        BadKey(description: "a key on a GET", method: .get, uri: { _ in "/v1/devices" }, headers: keyed("g"), json: nil),
        BadKey(description: "a key on a credential rotation (its answer is a secret)", uri: { _ in "/v1/devices/me/credential" }, headers: keyed("c"), json: nil),
    ]

    @Test(arguments: badKeys)
    func aBadKeyIsRefusedAndChangesNothing(_ bad: BadKey) async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let before = try await server.fingerprint()
            let reply = try await server.send(bad.method, bad.uri(parent), credential: parent.credential, json: bad.json, headers: bad.headers)
            #expect(reply.status == .badRequest, "\(String(buffer: reply.body))")
            #expect(reply.errorCode == "BAD_REQUEST")
            #expect(reply.error?.field == IdempotencyKey.header)
            #expect(try await server.fingerprint() == before)
        }
    }
}
