import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// PROTOCOL §3.1 end to end: a device shows a code, a parent takes it, the device claims its
/// credential, both show the same emoji, and the parent confirms it.
@Suite struct SignInFlowTests {
    static let browser = DeviceRegistration(name: "Firefox on the kitchen Mac", platform: .web, timeZone: "Europe/Berlin")

    static func start(_ server: TestServer) async throws -> StartSignInResponse {
        let reply = try await server.send(.post, "/v1/sign-ins", body: StartSignInRequest(device: browser))
        #expect(reply.status == .created)
        return try reply.decode(StartSignInResponse.self)
    }

    static func claim(_ server: TestServer, _ secret: String) async throws -> TestServer.Reply {
        try await server.send(.post, "/v1/sign-ins/claim", body: ClaimSignInRequest(secret: secret))
    }

    @Test func aBrowserSignsInAsAParentByTheCodeItShows() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let started = try await Self.start(server)
            #expect(started.signIn.status == .waiting)
            #expect(started.signIn.code.wholeMatch(of: /[A-Z2-7]{4}-[A-Z2-7]{4}/) != nil)
            #expect(started.signIn.expiresAt == server.clock.now().addingTimeInterval(600))
            #expect(started.secret.hasPrefix("fw1.\(started.signIn.code.replacingOccurrences(of: "-", with: "")).") && started.secret.utf8.count == 56)
            let payload = try SignInQRPayload(parsing: started.qrPayload)
            #expect(payload.code.display == started.signIn.code)
            #expect(payload.serverURL.hasPrefix("http://"))

            // Nobody has taken the code: the device waits, and learns nothing else.
            let waiting = try await Self.claim(server, started.secret)
            #expect(waiting.status == .ok)
            #expect(String(buffer: waiting.body) == #"{"signIn":{"code":"\#(started.signIn.code)","expiresAt":"\#(Instant.format(started.signIn.expiresAt))","status":"waiting"}}"#)

            // The parent types the code as a person would: lower case, a space for the dash.
            let typed = started.signIn.code.lowercased().replacingOccurrences(of: "-", with: " ")
            let taken = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, body: TakeSignInRequest(code: typed))
            #expect(taken.status == .created)
            let pairing = try taken.decode(PairingBody.self)
            #expect(pairing.role == .parent && pairing.status == .pending && pairing.createdBy == parent.deviceID)
            #expect(pairing.expiresAt == started.signIn.expiresAt)
            let emoji = try #require(pairing.verificationEmoji)
            #expect(emoji.count == 7)

            // The device claims: registered, awaiting confirmation, the same emoji.
            let claimed = try await Self.claim(server, started.secret)
            #expect(claimed.status == .ok)
            let answer = try claimed.decode(ClaimSignInResponse.self)
            #expect(answer.signIn.status == .claimed)
            let device = try #require(answer.device)
            #expect(device.platform == .web && device.role == .parent && device.status == .awaitingConfirmation && device.name == Self.browser.name)
            #expect(answer.pairing?.id == pairing.id && answer.pairing?.status == .accepted && answer.pairing?.verificationEmoji == emoji)
            #expect(answer.pairing?.deviceId == device.id)
            let credential = try #require(answer.credential)
            #expect(DeviceCredential(parsing: credential)?.deviceID == device.id)

            // The credential is handed out once.
            let again = try await Self.claim(server, started.secret)
            #expect(again.status == .gone)
            #expect(again.errorCode == "PAIRING_EXPIRED")

            // Until confirmed, as any accepted device: itself and its pairing.
            #expect(try await server.send(.get, "/v1/devices/me", credential: credential).status == .ok)
            #expect(try await server.send(.get, "/v1/pairings/\(pairing.id.lowercased)", credential: credential).decode(PairingBody.self).verificationEmoji == emoji)
            #expect(try await server.send(.get, "/v1/devices", credential: credential).status == .forbidden)
            let parentView = try await server.send(.get, "/v1/pairings/\(pairing.id.lowercased)", credential: parent.credential).decode(PairingBody.self)
            #expect(parentView.status == .accepted && parentView.verificationEmoji == emoji)

            // The parent confirms: a parent device of the family, on the web.
            let confirmed = try await server.send(.post, "/v1/pairings/\(pairing.id.lowercased)/confirm", credential: parent.credential)
            #expect(try confirmed.decode(PairingBody.self).status == .confirmed)
            let me = try await server.send(.get, "/v1/devices/me", credential: credential).decode(DeviceBody.self)
            #expect(me.status == .active && me.role == .parent && me.platform == .web)
            let everyone = try await server.send(.get, "/v1/devices", credential: credential).decode(DeviceList.self)
            #expect(Set(everyone.devices.map(\.id)) == [parent.deviceID, device.id])
            // A device of the person who took its code, not a parent member of its own.
            let members = try await server.send(.get, "/v1/members", credential: parent.credential).decode(MemberList.self).members
            #expect(me.memberId == (try await server.memberID(of: parent)) && members.count == 1, "\(members.map(\.name))")
        }
    }

    @Test func aCodeIsTakenOnceAndNotAfterItExpires() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let other = try await server.createFamily(name: "Another family's parent")
            let started = try await Self.start(server)
            // Read from the QR code the device shows.
            let taken = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, body: TakeSignInRequest(qrPayload: started.qrPayload))
            #expect(taken.status == .created)
            let second = try await server.send(.post, "/v1/pairings/sign-in", credential: other.credential, body: TakeSignInRequest(code: started.signIn.code))
            #expect(second.status == .gone)
            #expect(try await server.send(.get, "/v1/pairings", credential: other.credential).decode(PairingList.self).pairings.isEmpty)

            // Expired: neither taken nor claimed.
            let late = try await Self.start(server)
            server.clock.advance(by: 601)
            let tooLate = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, body: TakeSignInRequest(code: late.signIn.code))
            #expect(tooLate.status == .gone)
            #expect(try await Self.claim(server, late.secret).status == .gone)
            // The first one's pairing expired with it: the device cannot claim it any more.
            #expect(try await Self.claim(server, started.secret).status == .gone)
        }
    }

    @Test func aWithdrawnPairingCannotBeClaimed() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let started = try await Self.start(server)
            let pairing = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, body: TakeSignInRequest(code: started.signIn.code))
                .decode(PairingBody.self)
            #expect(try await server.send(.delete, "/v1/pairings/\(pairing.id.lowercased)", credential: parent.credential).status == .ok)
            let before = try await server.fingerprint()
            let claim = try await Self.claim(server, started.secret)
            #expect(claim.status == .gone)
            #expect(try await server.fingerprint() == before, "a refused claim registers nothing")
            #expect(try await server.send(.get, "/v1/devices", credential: parent.credential).decode(DeviceList.self).devices.count == 1)
        }
    }

    @Test func aWrongSecretOrCodeFindsNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let started = try await Self.start(server)
            var forged = started.secret
            forged.replaceSubrange(forged.index(before: forged.endIndex)..., with: forged.hasSuffix("A") ? "B" : "A")
            let before = try await server.fingerprint()
            for secret in [forged, "fw1.AAAAAAAA.\(String(repeating: "A", count: 43))", "not a secret"] {
                let reply = try await Self.claim(server, secret)
                #expect(reply.status == .notFound, "\(secret)")
            }
            // A well-formed code nobody shows.
            var unknown = SignInCode.generate()
            while unknown.display == started.signIn.code { unknown = SignInCode.generate() }
            let reply = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, body: TakeSignInRequest(code: unknown.display))
            #expect(reply.status == .notFound)
            #expect(try await server.fingerprint() == before)
            // The real one still works.
            #expect(try await Self.claim(server, started.secret).decode(ClaimSignInResponse.self).signIn.status == .waiting)
        }
    }

    @Test func twoClaimsAtOnceRegisterOneDevice() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let started = try await Self.start(server)
            _ = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, body: TakeSignInRequest(code: started.signIn.code))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 { group.addTask { try await Self.claim(server, started.secret).status.code } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 410, 410, 410])
            #expect(try await server.send(.get, "/v1/devices", credential: parent.credential).decode(DeviceList.self).devices.count == 2)
        }
    }

    @Test func expiredSignInsArePurgedADayLater() async throws {
        try await withTestServer(isolation: .database) { server in
            _ = try await Self.start(server)
            server.clock.advance(by: 600 + 86_400 + 1)
            let kept = try await Self.start(server)
            let purged = try await server.purgeSignIns(endedBefore: server.clock.now().addingTimeInterval(-86_400))
            #expect(purged == 1)
            #expect(try await Self.claim(server, kept.secret).status == .ok)
        }
    }
}
