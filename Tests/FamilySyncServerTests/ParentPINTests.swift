import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import NIOCore
import PostgresNIO
import Testing

/// The parent PIN (§11): a parent sets it, the member's devices learn that it is set and check it
/// online only, five wrong in 15 minutes lock checks out for 15, and the PIN itself is nowhere in
/// the database.
@Suite struct ParentPINTests {
    struct Family {
        var parent: TestDevice
        var child: TestDevice
        var member: UUID
    }

    static func family(_ server: TestServer, pin: String = "2468") async throws -> Family {
        let parent = try await server.createFamily()
        let (_, child) = try await server.pair(by: parent)
        let member = try await server.memberID(of: child)
        let set = try await server.send(.put, "/v1/members/\(member.lowercased)/pin", credential: parent.credential, json: #"{"pin":"\#(pin)"}"#)
        #expect(set.status == .noContent, "\(String(buffer: set.body))")
        return Family(parent: parent, child: child, member: member)
    }

    static func verify(_ server: TestServer, _ family: Family, _ pin: String) async throws -> TestServer.Reply {
        try await server.send(.post, "/v1/members/\(family.member.lowercased)/pin/verify", credential: family.child.credential, json: #"{"pin":"\#(pin)"}"#)
    }

    static func isValid(_ server: TestServer, _ family: Family, _ pin: String) async throws -> Bool {
        let reply = try await verify(server, family, pin)
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
        return try reply.decode(VerifyParentPINResponse.self).valid
    }

    /// The threat is a child holding its own device's credential and everything its device
    /// syncs: the record says a PIN is set and holds nothing a guess could be tried against, so a
    /// PIN is tried online only, five wrong in 15 minutes.
    @Test func theMembersDeviceLearnsAPINIsSetAndNothingToCheckItAgainst() async throws {
        try await withTestServer { server in
            let family = try await Self.family(server)
            let zone = Member.zoneName(of: family.member)
            let changes = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: family.child.credential).decode(ZoneChangesResponse.self)
            let record = try #require(changes.records.first { $0.recordName == "parent-pin" })
            #expect(record.recordType == "DeviceSettings")
            let fields = try #require(record.fields)
            #expect(ParentPIN.isMarker(fields) && ParentPIN(legacyFields: fields) == nil)
            // An earlier SDK reads a verifier that no PIN matches, the right one included.
            var asRead = fields
            asRead["verification"] = nil
            #expect(try #require(ParentPIN(legacyFields: asRead)).matches("2468") == false)
            // The verifier is the server's: neither the record nor the family's export holds it.
            let kept = try await server.postgres.query(
                "SELECT salt, hash FROM parent_pin_attempts WHERE family_id = \(family.parent.familyID) AND member_id = \(family.member)", logger: testLogger
            ).decode((ByteBuffer, ByteBuffer).self).first { _ in true }
            let (salt, hash) = try #require(kept)
            let secrets = [salt, hash].map { Data($0.readableBytesView).base64EncodedString() }
            #expect(ParentPIN(salt: Array(salt.readableBytesView), iterations: ParentPIN.iterations, hash: Array(hash.readableBytesView)).matches("2468"))
            let export = try await server.send(.get, "/v1/families/me/export", credential: family.parent.credential)
            let exported = String(decoding: export.body.readableBytesView, as: UTF8.self)
            #expect(export.status == .ok && exported.contains("parent-pin"))
            for secret in secrets {
                #expect(!exported.contains(secret) && !fields.values.contains(.string(secret)))
            }

            #expect(try await Self.isValid(server, family, "2468"))
            #expect(try await !Self.isValid(server, family, "1357"))

            // A new PIN is written as a new version of the marker; the old PIN stops working.
            let again = try await server.send(.put, "/v1/members/\(family.member.lowercased)/pin", credential: family.parent.credential, json: #"{"pin":"97531864"}"#)
            #expect(again.status == .noContent)
            let after = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(changes.changeToken)", credential: family.child.credential).decode(ZoneChangesResponse.self)
            #expect(after.records.map(\.recordName) == ["parent-pin"] && after.records.first?.fields.map(ParentPIN.isMarker) == true)
            #expect(try await Self.isValid(server, family, "97531864"))
            #expect(try await !Self.isValid(server, family, "2468"))
        }
    }

    @Test func fiveWrongPINsLockChecksOutForFifteenMinutes() async throws {
        try await withTestServer { server in
            let family = try await Self.family(server)
            for _ in 1...5 { #expect(try await !Self.isValid(server, family, "0000")) }
            // Locked: even the right PIN is refused, and not checked.
            let locked = try await Self.verify(server, family, "2468")
            #expect(locked.status == .tooManyRequests && locked.errorCode == "THROTTLED")
            #expect(locked.headers[.retryAfter] == "900")
            server.clock.advance(by: 14 * 60)
            let still = try await Self.verify(server, family, "2468")
            #expect(still.status == .tooManyRequests && still.headers[.retryAfter] == "60")
            server.clock.advance(by: 60)
            #expect(try await Self.isValid(server, family, "2468"))
        }
    }

    @Test func onlyWrongPINsWithinFifteenMinutesCount() async throws {
        try await withTestServer { server in
            let family = try await Self.family(server)
            // Four wrong, then a quarter of an hour: they no longer count.
            for _ in 1...4 { #expect(try await !Self.isValid(server, family, "0000")) }
            server.clock.advance(by: 15 * 60)
            for _ in 1...4 { #expect(try await !Self.isValid(server, family, "0000")) }
            #expect(try await Self.isValid(server, family, "2468"))
            // The right PIN forgets the wrong ones before it.
            for _ in 1...4 { #expect(try await !Self.isValid(server, family, "0000")) }
            #expect(try await Self.isValid(server, family, "2468"))
            // The fifth within the window locks.
            for _ in 1...5 { #expect(try await !Self.isValid(server, family, "0000")) }
            #expect(try await Self.verify(server, family, "2468").status == .tooManyRequests)
        }
    }

    @Test func aNewPINEndsALockout() async throws {
        try await withTestServer { server in
            let family = try await Self.family(server)
            for _ in 1...5 { #expect(try await !Self.isValid(server, family, "0000")) }
            #expect(try await Self.verify(server, family, "2468").status == .tooManyRequests)
            let set = try await server.send(.put, "/v1/members/\(family.member.lowercased)/pin", credential: family.parent.credential, json: #"{"pin":"8642"}"#)
            #expect(set.status == .noContent)
            #expect(try await Self.isValid(server, family, "8642"))
        }
    }

    /// Checks at once count one by one: ten wrong PINs sent together give five `valid: false` and
    /// five 429s, never more tries than the limit.
    @Test func concurrentWrongPINsCountOneByOne() async throws {
        try await withTestServer { server in
            let family = try await Self.family(server)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 1...10 { group.addTask { try await Self.verify(server, family, "0000").status } }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 5, "\(statuses)")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 5, "\(statuses)")
        }
    }

    /// The PIN is stored only as PBKDF2: no table holds its digits, in any of the requests' rows.
    @Test func thePINIsNowhereInTheDatabase() async throws {
        try await withTestServer { server in
            let family = try await Self.family(server, pin: "73950284")
            #expect(try await Self.isValid(server, family, "73950284"))
            #expect(try await !Self.isValid(server, family, "73950285"))
            let text = try await databaseText(server.postgres)
            #expect(text.contains("parent_pin_attempts") && text.contains("verification"), "the dump holds the verifier's table and the marker")
            #expect(!text.contains("73950284") && !text.contains("73950285"))
        }
    }

    /// Cleared: the member's devices get an empty tombstone (no hash left), checks are 404, wrong
    /// tries are forgotten, and clearing again is 404.
    @Test func aParentClearsThePIN() async throws {
        try await withTestServer { server in
            let family = try await Self.family(server)
            let zone = Member.zoneName(of: family.member)
            let first = try await server.send(.get, "/v1/zones/\(zone)/changes", credential: family.child.credential).decode(ZoneChangesResponse.self)
            #expect(try await !Self.isValid(server, family, "1357"))
            let cleared = try await server.send(.delete, "/v1/members/\(family.member.lowercased)/pin", credential: family.parent.credential)
            #expect(cleared.status == .noContent, "\(String(buffer: cleared.body))")
            let after = try await server.send(.get, "/v1/zones/\(zone)/changes?since=\(first.changeToken)", credential: family.child.credential).decode(ZoneChangesResponse.self)
            let tombstone = try #require(after.records.first { $0.recordName == "parent-pin" })
            #expect(tombstone.deleted == true && (tombstone.fields ?? [:]).isEmpty)
            #expect(try await Self.verify(server, family, "2468").status == .notFound)
            let again = try await server.send(.delete, "/v1/members/\(family.member.lowercased)/pin", credential: family.parent.credential)
            #expect(again.status == .notFound && again.errorCode == "NOT_FOUND")
            let byChild = try await server.send(.delete, "/v1/members/\(family.member.lowercased)/pin", credential: family.child.credential)
            #expect(byChild.status == .forbidden)
            // A new PIN after a clear works as the first did.
            _ = try await server.send(.put, "/v1/members/\(family.member.lowercased)/pin", credential: family.parent.credential, json: #"{"pin":"1111"}"#)
            #expect(try await Self.isValid(server, family, "1111"))
        }
    }

    @Test func aMemberWithoutAPINIsNotFound() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let reply = try await server.send(.post, "/v1/members/\(member.lowercased)/pin/verify", credential: child.credential, json: #"{"pin":"2468"}"#)
            #expect(reply.status == .notFound && reply.errorCode == "NOT_FOUND", "\(String(buffer: reply.body))")
        }
    }
}

/// Bad PINs and bad ids (§11, §1.1): each refused with the error naming it, changing nothing (a
/// malformed PIN is not a wrong try).
@Suite struct ParentPINBadInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var verify = false
        /// `DELETE …/pin` rather than `PUT`.
        var clear = false
        var member: @Sendable (ParentPINTests.Family, UUID) -> String = { family, _ in family.member.lowercased }
        var json: String? = #"{"pin":"1357"}"#
        var status: HTTPResponse.Status = .badRequest
        var code = "BAD_REQUEST"
        var field: String? = nil
    }

    static let cases: [Case] = [
        Case(description: "a PIN of 3 digits", json: #"{"pin":"123"}"#, field: "pin"),
        Case(description: "a PIN of 9 digits", json: #"{"pin":"123456789"}"#, field: "pin"),
        Case(description: "a PIN with a letter", json: #"{"pin":"12a4"}"#, field: "pin"),
        Case(description: "a PIN of Arabic-Indic digits", json: #"{"pin":"١٢٣٤"}"#, field: "pin"),
        Case(description: "a PIN as a number", json: #"{"pin":1234}"#, field: "pin"),
        Case(description: "no PIN", json: #"{}"#, field: "pin"),
        Case(description: "a null PIN", json: #"{"pin":null}"#, field: "pin"),
        Case(description: "an unknown member of the body", json: #"{"pin":"1234","hint":"birthday"}"#, field: "hint"),
        Case(description: "no body", json: nil),
        Case(description: "a member id that is not a UUID", member: { _, _ in "johnny" }, field: "id"),
        Case(description: "a member that does not exist", member: { _, _ in UUID().lowercased }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "another family's member", member: { _, other in other.lowercased }, status: .notFound, code: "NOT_FOUND"),
        Case(description: "a clear of a member id that is not a UUID", clear: true, member: { _, _ in "johnny" }, json: nil, field: "id"),
        Case(description: "a clear of a member that does not exist", clear: true, member: { _, _ in UUID().lowercased }, json: nil, status: .notFound, code: "NOT_FOUND"),
        Case(description: "a clear of another family's member", clear: true, member: { _, other in other.lowercased }, json: nil, status: .notFound, code: "NOT_FOUND"),
        Case(description: "a check of 3 digits", verify: true, json: #"{"pin":"123"}"#, field: "pin"),
        Case(description: "a check of 9 digits", verify: true, json: #"{"pin":"123456789"}"#, field: "pin"),
        Case(description: "a check without a PIN", verify: true, json: #"{}"#, field: "pin"),
        Case(description: "a check with an unknown member of the body", verify: true, json: #"{"pin":"2468","try":2}"#, field: "try"),
        Case(description: "a check of another member", verify: true, member: { _, other in other.lowercased }, status: .forbidden, code: "ACCESS_DENIED"),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ bad: Case) async throws {
        try await withTestServer { server in
            let family = try await ParentPINTests.family(server)
            let otherParent = try await server.createFamily(name: "Other parent")
            let (_, otherChild) = try await server.pair(by: otherParent)
            let otherMember = try await server.memberID(of: otherChild)
            let before = try await server.fingerprint()
            let member = bad.member(family, otherMember)
            let reply = if bad.verify {
                try await server.send(.post, "/v1/members/\(member)/pin/verify", credential: family.child.credential, json: bad.json)
            } else if bad.clear {
                try await server.send(.delete, "/v1/members/\(member)/pin", credential: family.parent.credential)
            } else {
                try await server.send(.put, "/v1/members/\(member)/pin", credential: family.parent.credential, json: bad.json)
            }
            #expect(reply.status == bad.status, "\(String(buffer: reply.body).prefix(300))")
            #expect(reply.errorCode == bad.code)
            if let field = bad.field { #expect(reply.error?.field == field, "\(String(buffer: reply.body))") }
            #expect(try await server.fingerprint() == before, "the refused request changed the database")
            // The refusal does not echo the PIN it was sent.
            if let sent = bad.json?.firstMatch(of: /"pin":"?([0-9]+)/)?.1 { #expect(!String(buffer: reply.body).contains(sent)) }
        }
    }
}
