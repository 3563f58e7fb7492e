import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import PostgresNIO
import Testing

/// Push registrations (§12): one per device, a token with one device at a time, gone with a
/// revoked device; bad ones refused naming the member, changing nothing.
@Suite struct PushRegistrationTests {
    static let token = String(repeating: "0a1b", count: 16)

    static func body(token: String = token, topic: String = "com.example.screentime", environment: String = "production") -> String {
        #"{"provider":"apns","token":"\#(token)","topic":"\#(topic)","environment":"\#(environment)"}"#
    }

    /// Device ids holding `token`, with their topic and environment.
    static func holders(_ server: TestServer, token: String = token) async throws -> [(UUID, String, String)] {
        try await server.postgres.query(
            "SELECT device_id, topic, environment FROM device_push_tokens WHERE token = \(token)", logger: testLogger
        ).decode((UUID, String, String).self).reduce(into: []) { $0.append($1) }
    }

    @Test func aTokenMovesWithItsLatestRegistrationAndLeavesWithItsDevice() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let otherParent = try await server.createFamily(name: "Other parent")

            #expect(try await server.send(.put, "/v1/devices/me/push", credential: child.credential, json: Self.body(environment: "sandbox")).status == .noContent)
            #expect(try await Self.holders(server).map(\.0) == [child.deviceID])
            // Again, changed: still one registration, the latest.
            #expect(try await server.send(.put, "/v1/devices/me/push", credential: child.credential, json: Self.body(topic: "com.example.other")).status == .noContent)
            #expect(try await Self.holders(server).map { "\($0.1) \($0.2)" } == ["com.example.other production"])
            // The same token from another device, in another family: it moves there.
            #expect(try await server.send(.put, "/v1/devices/me/push", credential: otherParent.credential, json: Self.body(token: Self.token.uppercased())).status == .noContent)
            #expect(try await Self.holders(server).map(\.0) == [otherParent.deviceID], "kept lowercase, and moved")
            // Back, then the device is revoked: its registration goes.
            #expect(try await server.send(.put, "/v1/devices/me/push", credential: child.credential, json: Self.body()).status == .noContent)
            #expect(try await server.send(.delete, "/v1/devices/\(child.deviceID.lowercased)", credential: parent.credential).status == .noContent)
            #expect(try await Self.holders(server).isEmpty)
            // Unregistering: gone, and again is fine.
            #expect(try await server.send(.put, "/v1/devices/me/push", credential: parent.credential, json: Self.body()).status == .noContent)
            #expect(try await server.send(.delete, "/v1/devices/me/push", credential: parent.credential).status == .noContent)
            #expect(try await server.send(.delete, "/v1/devices/me/push", credential: parent.credential).status == .noContent)
            #expect(try await Self.holders(server).isEmpty)
        }
    }

    static let bad: [(String, String, String?)] = [
        ("an unknown provider", #"{"provider":"fcm","token":"\#(token)","topic":"com.example.app","environment":"production"}"#, "provider"),
        ("a token of 62 hex digits", body(token: String(token.prefix(62))), "token"),
        ("a token of 202 hex digits", body(token: String(repeating: "ab", count: 101)), "token"),
        ("a token of an odd length", body(token: token + "a"), "token"),
        ("a token that is not hex", body(token: String(token.dropLast()) + "g"), "token"),
        ("an empty topic", body(topic: ""), "topic"),
        ("a topic with a space", body(topic: "com.example app"), "topic"),
        ("a topic with an empty label", body(topic: "com..example"), "topic"),
        ("an unknown environment", body(environment: "development"), "environment"),
        ("no token", #"{"provider":"apns","topic":"com.example.app","environment":"production"}"#, "token"),
        ("a null token", #"{"provider":"apns","token":null,"topic":"com.example.app","environment":"production"}"#, "token"),
        ("a token as a number", #"{"provider":"apns","token":42,"topic":"com.example.app","environment":"production"}"#, "token"),
        ("an unknown member", #"{"provider":"apns","token":"\#(token)","topic":"com.example.app","environment":"production","badge":1}"#, "badge"),
        ("no body", "", nil),
    ]

    @Test(arguments: bad.indices)
    func aBadRegistrationIsRefusedAndChangesNothing(_ index: Int) async throws {
        let (description, json, field) = Self.bad[index]
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            // A token of this case's own: registering a token takes it from any other device, of any
            // family (on the Citus pass's shared database, another case's).
            let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            #expect(try await server.send(.put, "/v1/devices/me/push", credential: child.credential, json: Self.body(token: token)).status == .noContent)
            let before = try await server.fingerprint()
            let reply = try await server.send(.put, "/v1/devices/me/push", credential: child.credential, json: json.isEmpty ? nil : json)
            #expect(reply.status == .badRequest && reply.errorCode == "BAD_REQUEST", "\(description): \(String(buffer: reply.body))")
            if let field { #expect(reply.error?.field == field, "\(description): \(String(buffer: reply.body))") }
            #expect(try await server.fingerprint() == before, "\(description) changed the database")
        }
    }
}
