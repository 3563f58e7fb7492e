import FamilySyncCore
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The limits PROTOCOL §1.2, §3.1, §13 and §14 promise: each device's budget of requests, wrong
/// sign-in codes per family and per address, wrong recoveries counted before they are tried, and
/// the addresses that share a bucket.
@Suite struct RequestLimitTests {
    static let device = #"{"name":"Phone","platform":"ios","timeZone":"UTC"}"#

    @Test func aDevicePastItsBudgetIs429AndAnotherDeviceIsNot() async throws {
        var configuration = ServerConfiguration.forTests
        configuration.deviceRateLimit = RateLimit(burst: 5, perMinute: 60)
        try await withTestServer(configuration: configuration) { server in
            let parent = try await server.createFamily()
            let other = try await server.createFamily(name: "Other parent")
            for _ in 0..<5 {
                #expect(try await server.send(.get, "/v1/devices/me", credential: parent.credential).status == .ok)
            }
            let throttled = try await server.send(.get, "/v1/devices/me", credential: parent.credential)
            #expect(throttled.status == .tooManyRequests)
            #expect(throttled.errorCode == "THROTTLED")
            #expect(throttled.headers[.retryAfter] == "1")
            #expect(throttled.error?.retryAfter == 1)
            // A write past the budget changes nothing.
            let before = try await server.fingerprint()
            let write = try await server.send(.patch, "/v1/devices/me", credential: parent.credential, json: #"{"name":"Renamed"}"#)
            #expect(write.status == .tooManyRequests)
            #expect(try await server.fingerprint() == before)
            // Another family's device has its own budget.
            #expect(try await server.send(.get, "/v1/devices/me", credential: other.credential).status == .ok)
            server.clock.advance(by: 1)
            #expect(try await server.send(.get, "/v1/devices/me", credential: parent.credential).status == .ok)
        }
    }

    @Test func anUnknownCredentialIs401NotCounted() async throws {
        var configuration = ServerConfiguration.forTests
        configuration.deviceRateLimit = RateLimit(burst: 1, perMinute: 1)
        try await withTestServer(configuration: configuration) { server in
            let parent = try await server.createFamily()
            let forged = "fs1.\(parent.familyID.lowercased).\(parent.deviceID.lowercased).\(String(repeating: "A", count: 43))"
            for _ in 0..<3 {
                #expect(try await server.send(.get, "/v1/devices/me", credential: forged).status == .unauthorized)
            }
            #expect(try await server.send(.get, "/v1/devices/me", credential: parent.credential).status == .ok)
        }
    }

    @Test func wrongSignInCodesAreLimitedPerFamilyAndPerAddressEvenWhenSentAtOnce() async throws {
        var configuration = ServerConfiguration.forTests
        configuration.signInCodeFailureLimit = RateLimit(burst: 10, perMinute: 1)
        configuration.trustedProxies = try TrustedProxies(parsing: "127.0.0.1")
        try await withTestServer(configuration: configuration) { server in
            func take(_ code: String, by device: TestDevice, from client: String) async throws -> Int {
                try await server.send(
                    .post, "/v1/pairings/sign-in", credential: device.credential, json: #"{"code":"\#(code)"}"#, headers: [("X-Forwarded-For", client)]
                ).status.code
            }
            let parent = try await server.createFamily()
            let (_, coParent) = try await server.pair(by: parent, role: .parent)
            let other = try await server.createFamily(name: "Other parent")
            let before = try await server.fingerprint()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for letter in "ABCDEFGHIJKLMNOPQRS" {
                    group.addTask { try await take("2222-222\(letter)", by: parent, from: "203.0.113.1") }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 404 }.count == 10, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 429 }.count == 9, "\(statuses.sorted())")
            // The family's other parent device, from elsewhere, is held: the family's limit.
            let coParentElsewhere = try await take("2222-2222", by: coParent, from: "203.0.113.2")
            // Another family from the same address is held: the address's limit.
            let otherFamilySameAddress = try await take("2222-2222", by: other, from: "203.0.113.1")
            // Another family from elsewhere is not.
            let otherFamilyElsewhere = try await take("2222-2222", by: other, from: "203.0.113.3")
            #expect([coParentElsewhere, otherFamilySameAddress, otherFamilyElsewhere] == [Int](arrayLiteral: 429, 429, 404))
            #expect(try await server.fingerprint() == before)
            // A code really shown is taken once the minute has passed.
            server.clock.advance(by: 61)
            let shown = try await server.send(.post, "/v1/sign-ins", json: #"{"device":\#(Self.device)}"#).decode(StartSignInResponse.self)
            let right = try await take(shown.signIn.code, by: parent, from: "203.0.113.1")
            #expect(right == 201)
        }
    }

    @Test func rightSignInCodesDoNotCount() async throws {
        var configuration = ServerConfiguration.forTests
        configuration.signInCodeFailureLimit = RateLimit(burst: 2, perMinute: 1)
        try await withTestServer(configuration: configuration) { server in
            let parent = try await server.createFamily()
            for _ in 0..<4 {
                let shown = try await server.send(.post, "/v1/sign-ins", json: #"{"device":\#(Self.device)}"#).decode(StartSignInResponse.self)
                let taken = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, json: #"{"code":"\#(shown.signIn.code)"}"#)
                #expect(taken.status == .created)
            }
        }
    }

    @Test func concurrentWrongRecoveriesAreHeldToTheLimit() async throws {
        try await withTestServer { server in
            let before = try await server.fingerprint()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<19 {
                    group.addTask {
                        try await server.send(.post, "/v1/families/recover", body: RecoverFamilyRequest(
                            recoveryCode: RecoveryCode.generate().display, device: .init(name: "New phone", platform: .ios, timeZone: "UTC")
                        )).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 404 }.count == 5, "\(statuses.sorted())")
            #expect(statuses.filter { $0 == 429 }.count == 14, "\(statuses.sorted())")
            #expect(try await server.fingerprint() == before)
        }
    }

    @Test func aRightRecoveryDoesNotCount() async throws {
        var configuration = ServerConfiguration.forTests
        configuration.recoveryFailureLimit = RateLimit(burst: 1, perMinute: 1)
        try await withTestServer(configuration: configuration) { server in
            var code = try await server.send(.post, "/v1/families", json: #"{"device":\#(Self.device)}"#).decode(CreateFamilyResponse.self).recoveryCode
            for _ in 0..<3 {
                let recovered = try await server.send(.post, "/v1/families/recover", json: #"{"recoveryCode":"\#(code)","device":\#(Self.device)}"#)
                #expect(recovered.status == .created)
                code = try recovered.decode(CreateFamilyResponse.self).recoveryCode
            }
        }
    }

    @Test(arguments: [
        ("2001:db8:1:2::1", "2001:db8:1:2:ffff::9", true),
        ("2001:db8:1:2::1", "2001:db8:1:3::1", false),
        ("127.0.0.1", "127.0.0.10", true),
        ("::1", "127.0.0.2", true),
        ("::ffff:192.0.2.1", "192.0.2.1", true),
        ("192.0.2.1", "192.0.2.2", false),
        ("2001:DB8:0001:0002::1", "2001:db8:1:2::2", true),
    ])
    func addressesShareABucketByTheirBlock(first: String, second: String, shared: Bool) {
        #expect((AddressBlock.key(of: first) == AddressBlock.key(of: second)) == shared, "\(AddressBlock.key(of: first)) \(AddressBlock.key(of: second))")
    }

    @Test func clientsOfOneIPv6BlockShareTheUnauthenticatedLimit() async throws {
        var configuration = ServerConfiguration.forTests
        configuration.unauthenticatedRateLimit = RateLimit(burst: 2, perMinute: 1)
        configuration.trustedProxies = try TrustedProxies(parsing: "127.0.0.1")
        try await withTestServer(configuration: configuration) { server in
            func create(from client: String) async throws -> Int {
                try await server.send(.post, "/v1/families", json: #"{"device":\#(Self.device)}"#, headers: [("X-Forwarded-For", client)]).status.code
            }
            let first = try await create(from: "2001:db8:7:7::1")
            let sameHost = try await create(from: "2001:db8:7:7::2")
            let sameBlock = try await create(from: "2001:db8:7:7:abcd::3")
            let otherBlock = try await create(from: "2001:db8:7:8::1")
            #expect([first, sameHost, sameBlock, otherBlock] == [Int](arrayLiteral: 201, 201, 429, 201))
        }
    }
}
