import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// PROTOCOL §13, the recovery code: a family whose every parent device is lost comes back with it.
@Suite struct RecoveryTests {
    static func recover(_ server: TestServer, code: String) async throws -> TestServer.Reply {
        try await server.send(.post, "/v1/families/recover", body: RecoverFamilyRequest(
            recoveryCode: code, device: .init(name: "New phone", platform: .ios, timeZone: "Europe/Berlin")
        ))
    }

    @Test func theCodeGivesANewParentDeviceOnceAndANewCode() async throws {
        try await withTestServer { server in
            let created = try await server.send(.post, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Mom's iPhone", platform: .ios, timeZone: "UTC")))
            let family = try created.decode(CreateFamilyResponse.self)
            #expect(family.recoveryCode.wholeMatch(of: /[A-Z2-7]{4}(-[A-Z2-7]{4}){7}/) != nil, "\(family.recoveryCode)")
            // Typed by a person: lower case, no dashes.
            let typed = family.recoveryCode.lowercased().replacingOccurrences(of: "-", with: "")
            let reply = try await Self.recover(server, code: typed)
            #expect(reply.status == .created, "\(String(buffer: reply.body))")
            let recovered = try reply.decode(CreateFamilyResponse.self)
            #expect(recovered.family.id == family.family.id)
            #expect(recovered.device.role == .parent && recovered.device.status == .active)
            #expect(recovered.device.memberId == family.device.memberId, "the person who was shown the code")
            #expect(recovered.recoveryCode != family.recoveryCode)
            // The new device works; the old code does not, and the new one does.
            #expect(try await server.send(.get, "/v1/devices", credential: recovered.credential).status == .ok)
            let again = try await Self.recover(server, code: family.recoveryCode)
            #expect(again.status == .notFound && again.errorCode == "NOT_FOUND")
            #expect(try await Self.recover(server, code: recovered.recoveryCode).status == .created)
        }
    }

    @Test func aParentIssuesANewCodeAndTheOldOneStops() async throws {
        try await withTestServer { server in
            let created = try await server.send(.post, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Dad", platform: .macos, timeZone: "UTC")))
            let family = try created.decode(CreateFamilyResponse.self)
            let issued = try await server.send(.post, "/v1/families/me/recovery-code", credential: family.credential)
            #expect(issued.status == .ok)
            let code = try issued.decode(RecoveryCodeResponse.self).recoveryCode
            #expect(try await Self.recover(server, code: family.recoveryCode).status == .notFound)
            #expect(try await Self.recover(server, code: code).status == .created)
        }
    }

    /// Wrong codes are 404 without a hint, counted per address: five, then 429 with Retry-After,
    /// even for the right code; nothing is written by any of them.
    @Test func wrongCodesAreThrottledPerAddress() async throws {
        try await withTestServer { server in
            let created = try await server.send(.post, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Dad", platform: .macos, timeZone: "UTC")))
            let family = try created.decode(CreateFamilyResponse.self)
            let before = try await server.fingerprint()
            for _ in 0..<5 {
                let wrong = try await Self.recover(server, code: RecoveryCode.generate().display)
                #expect(wrong.status == .notFound && wrong.error?.reason.contains("family") == true)
            }
            let throttled = try await Self.recover(server, code: family.recoveryCode)
            #expect(throttled.status == .tooManyRequests && throttled.headers[.retryAfter] != nil)
            #expect(try await server.fingerprint() == before)
            server.clock.advance(by: 61)
            #expect(try await Self.recover(server, code: family.recoveryCode).status == .created)
        }
    }
}
