import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import Foundation
import Testing

/// An instance keeps the credentials it checked (`KnownDevices`), and a revoked or rotated
/// credential is still refused at once where it changed, and on every other instance by the time
/// the change's notice has reached it: when a poll held there has answered.
@Suite struct CredentialCacheTests {
    /// The scheme in any case, the token with spaces or tabs around it; no token, or no space
    /// after the scheme, is no credential.
    @Test func theBearerTokenIsReadAsRFC6750Says() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            for header in ["Bearer \(parent.credential)", "bEaReR   \(parent.credential) \t ", "BEARER \t\(parent.credential)"] {
                let reply = try await server.send(.get, "/v1/devices/me", headers: [("Authorization", header)])
                #expect(reply.status == .ok, "\(header.debugDescription): \(String(buffer: reply.body))")
            }
            for header in ["Bearer", "Bearer ", "Bearer  \t ", "Bearer\(parent.credential)", "Basic \(parent.credential)", "Bearer \(parent.credential)x"] {
                let reply = try await server.send(.get, "/v1/devices/me", headers: [("Authorization", header)])
                #expect(reply.status == .unauthorized && reply.errorCode == "AUTHENTICATION_REQUIRED", "\(header.debugDescription)")
            }
        }
    }

    @Test func aRevokedDeviceIsRefusedAtOnceOnTheInstanceThatRevokedIt() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            try await server.waitUntilKnown(child)
            let revoke = try await server.send(.delete, "/v1/devices/\(child.deviceID.lowercased)", credential: parent.credential)
            #expect(revoke.status == .noContent)
            #expect(try await server.send(.get, "/v1/devices/me", credential: child.credential).status == .unauthorized)
        }
    }

    @Test func aRotatedCredentialIsRefusedAtOnceOnTheInstanceThatRotatedIt() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            try await server.waitUntilKnown(child)
            let rotated = try await server.send(.post, "/v1/devices/me/credential", credential: child.credential).decode(CredentialResponse.self)
            #expect(try await server.send(.get, "/v1/devices/me", credential: child.credential).status == .unauthorized)
            #expect(try await server.send(.get, "/v1/devices/me", credential: rotated.credential).status == .ok)
        }
    }

    /// The second instance knew the child; the revocation made on the first reaches it with the
    /// notice that answers the child's poll there 401, and its next request is refused too.
    @Test func aRevocationOnOneInstanceIsRefusedOnAnother() async throws {
        try await withTestServer { first in
            let parent = try await first.createFamily()
            let (_, child) = try await first.pair(by: parent)
            let token = try await first.databaseToken(child)
            try await withTestServer(databaseURL: first.databaseURL) { second in
                try await second.waitUntilKnown(child)
                let held = try await second.holdPoll(child, since: token)
                let revoke = try await first.send(.delete, "/v1/devices/\(child.deviceID.lowercased)", credential: parent.credential)
                #expect(revoke.status == .noContent)
                #expect(try await held.value.status == .unauthorized)
                #expect(try await second.send(.get, "/v1/devices/me", credential: child.credential).status == .unauthorized)
            }
        }
    }

    /// A rotation changes nothing a poll answers, so a later change is the sign that the second
    /// instance has heard it: notices arrive in commit order on its one listener.
    @Test func aRotationOnOneInstanceIsRefusedOnAnother() async throws {
        try await withTestServer { first in
            let parent = try await first.createFamily()
            let (_, child) = try await first.pair(by: parent)
            let token = try await first.databaseToken(parent)
            try await withTestServer(databaseURL: first.databaseURL) { second in
                try await second.waitUntilKnown(child)
                let held = try await second.holdPoll(parent, since: token)
                let rotated = try await first.send(.post, "/v1/devices/me/credential", credential: child.credential).decode(CredentialResponse.self)
                try await first.configure("family", by: parent)
                #expect(try await held.value.poll?.changed == true)
                #expect(try await second.send(.get, "/v1/devices/me", credential: child.credential).status == .unauthorized)
                #expect(try await second.send(.get, "/v1/devices/me", credential: rotated.credential).status == .ok)
            }
        }
    }
}
