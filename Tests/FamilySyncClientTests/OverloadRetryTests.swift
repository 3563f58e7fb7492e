import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import Foundation
import Synchronization
import Testing

/// The SDK's own resending of a shed request (PROTOCOL §1.2, docs/sdk.md "Overload"), against a
/// transport that answers from a script: which answers are sent again, how often, and which not.
@Suite struct OverloadRetryTests {
    /// Answers each request with the next of `script` (the last again once it runs out), counting them.
    final class ScriptedServer: HTTPTransport {
        let script: [TransportResponse]
        let asked = Atomic<Int>(0)

        init(_ script: [TransportResponse]) { self.script = script }

        func exchange(_ request: TransportRequest) async throws(TransportFailure) -> TransportResponse {
            let index = asked.add(1, ordering: .relaxed).newValue - 1
            return script[min(index, script.count - 1)]
        }
    }

    static func shed(_ reason: TryAgainReason) -> TransportResponse {
        answer(503, reason.error, retryAfter: reason.retryAfter)
    }

    static func answer(_ status: Int, _ error: FamilySyncError, retryAfter: Int) -> TransportResponse {
        let body = #"{"error":{"code":"\#(error.code.rawValue)","reason":"\#(error.reason)","retryAfter":\#(retryAfter)}}"#
        return TransportResponse(status: status, headers: ["Retry-After": "\(retryAfter)", "Content-Type": "application/json"], body: Data(body.utf8))
    }

    static let devices = TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"devices":[]}"#.utf8))
    static let registration = DeviceRegistration(name: "Mom's iPhone", platform: .ios, timeZone: "America/Chicago")

    static func client(_ server: ScriptedServer) -> FamilySyncClient {
        FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:1")!, credential: "fs1.test", transport: server)
    }

    @Test func aShedReadGoesAgainUntilAnswered() async throws {
        let server = ScriptedServer([Self.shed(.familyBusy), Self.shed(.poolExhausted), Self.devices])
        #expect(try await Self.client(server).devices().isEmpty)
        #expect(server.asked.load(ordering: .relaxed) == 3)
    }

    @Test func threeAttemptsAtMost() async throws {
        let server = ScriptedServer([Self.shed(.familyBusy)])
        await #expect(throws: TryAgainReason.familyBusy.error) { try await Self.client(server).devices() }
        #expect(server.asked.load(ordering: .relaxed) == 3)
    }

    /// A write the server shed before doing anything goes again; one that met the database going
    /// away may have been done, and is the app's to decide.
    @Test func aWriteGoesAgainOnlyWhenNothingWasDone() async throws {
        let server = ScriptedServer([Self.shed(.familyBusy), Self.shed(.databaseUnavailable)])
        await #expect(throws: TryAgainReason.databaseUnavailable.error) { try await Self.client(server).createFamily(Self.registration) }
        #expect(server.asked.load(ordering: .relaxed) == 2)
    }

    @Test func aReadGoesAgainWhenTheDatabaseWasAway() async throws {
        let server = ScriptedServer([Self.shed(.databaseUnavailable), Self.devices])
        #expect(try await Self.client(server).devices().isEmpty)
        #expect(server.asked.load(ordering: .relaxed) == 2)
    }

    /// A long wait, and a rate limit, are the caller's (the sync engine's, the upload queue's).
    @Test(arguments: [
        answer(503, .unavailable("The server is shutting down.", retryAfter: 30), retryAfter: 30),
        answer(429, FamilySyncError(.throttled, "Too many requests."), retryAfter: 1),
    ])
    func notSentAgain(_ answer: TransportResponse) async throws {
        let server = ScriptedServer([answer, Self.devices])
        await #expect(throws: FamilySyncError.self) { try await Self.client(server).devices() }
        #expect(server.asked.load(ordering: .relaxed) == 1)
    }
}
