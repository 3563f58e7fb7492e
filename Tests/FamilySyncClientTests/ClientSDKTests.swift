import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing

/// The transports the SDK's calls are tested over: each test runs once on each.
enum TestTransport: CaseIterable, Sendable, CustomStringConvertible {
    case asyncHTTPClient, urlSession

    var transport: any HTTPTransport {
        switch self {
        case .asyncHTTPClient: AsyncHTTPClientTransport(client: TestServer.http)
        case .urlSession: URLSessionTransport.shared
        }
    }

    var description: String { self == .asyncHTTPClient ? "AsyncHTTPClient" : "URLSession" }
}

/// The SDK's typed calls against a live server: a parent and a child device end to end, over
/// each transport.
@Suite struct ClientSDKTests {
    @Test(arguments: TestTransport.allCases) func aParentAndAChildThroughTheSDK(_ via: TestTransport) async throws {
        try await withTestServer { server in
            let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: via.transport)
            let family = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "America/Chicago"))
            let parent = anonymous.authenticated(as: family.credential)

            // Pairing, as §3 and docs/walkthrough.md walk it.
            let invitation = try await parent.createPairing(CreatePairingRequest(role: .child, childName: "Johnny"))
            let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Johnny's iPad", platform: .ipados, timeZone: "UTC"))
            let child = anonymous.authenticated(as: accepted.credential)
            #expect(try await parent.pairing(invitation.pairing.id).verificationEmoji == accepted.pairing.verificationEmoji)
            #expect(try await parent.confirmPairing(invitation.pairing.id).status == .confirmed)
            let childID = accepted.device.id
            #expect(try await child.me().status == .active)
            #expect(try await parent.devices().count == 2)

            // A command round trip, waking the child's poll.
            let since = try await child.databaseChanges(since: nil).changeToken
            async let woken = child.poll(since: since, timeout: 30)
            try await server.waitForHeldPolls(1)
            let command = try await parent.sendCommand(to: childID, CreateCommandRequest(commandType: "request_sync"))
            #expect(try await woken.changed)
            let delivered = try await child.commands(of: childID, status: .pending)
            #expect(delivered.map(\.commandId) == [command.commandId])
            #expect(delivered.map(\.status) == [.delivered])
            let done = try await child.reportResult(of: UUID(uuidString: command.commandId)!, executed: true)
            #expect(done.status == .executed)

            // Usage, summaries, the report and its CSV.
            let start = server.clock.now().addingTimeInterval(-3600)
            let upload = try await child.uploadUsage(UsageUploadRequest(records: [UsageRecordBody(
                recordID: UUID().uuidString, logicalID: "khan", displayName: "Khan, Academy", category: "learning",
                sessionStart: start, sessionEnd: start.addingTimeInterval(600), totalSeconds: 600, earnedPoints: 10
            )]))
            #expect(upload.accepted == 1)
            let day = try #require(upload.summaries.first?.date)
            #expect(try await parent.summaries(of: childID, from: day, to: day).first?.totalLearningSeconds == 600)
            #expect(try await parent.usage(of: childID, from: start, to: server.clock.now()).records.map(\.logicalID) == ["khan"])
            #expect(try await parent.report(of: childID, from: day, to: day).totals.totalSeconds == 600)
            let csv = try await parent.reportCSV(of: childID, from: day, to: day)
            #expect(csv.contains("\"Khan, Academy\""))

            // Errors carry §1.1's code.
            #expect(await failure { try await parent.pairing(UUID()) }?.code == .notFound)
            try await parent.revokeDevice(childID)
            #expect(await failure { try await child.me() }?.code == .authenticationRequired)
        }
    }

    /// A co-parent types the pairing's id and token instead of scanning.
    /// A page large enough to come gzipped (the SDK asks for it) arrives whole.
    @Test(arguments: TestTransport.allCases) func aGzippedPageIsReadAsSent(_ via: TestTransport) async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            for index in 0..<40 { try await server.configure("family", by: parent, name: "note-\(index)") }
            let plain = try await server.send(.get, "/v1/zones/family/changes", credential: parent.credential).decode(ZoneChangesResponse.self)
            let gzipped = try await server.send(.get, "/v1/zones/family/changes", credential: parent.credential, headers: [("Accept-Encoding", "gzip")])
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            try await withRecordingProxy(to: server.port) { port, asked in
                let client = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, credential: parent.credential, transport: via.transport)
                // The SDK asks for the compact format and reads it into the full format's records.
                let page = try await client.zoneChanges("family", since: nil)
                #expect(page.records == plain.records)
                #expect(asked().last?.query?.contains("format=compact") == true)
                // URLSession asks in its own words (libcurl's list on Linux), AsyncHTTPClient in the SDK's.
                #expect(asked().last?.acceptEncoding?.contains("gzip") == true)
            }
        }
    }

    @Test(arguments: TestTransport.allCases) func aCoParentAcceptsByIdAndToken(_ via: TestTransport) async throws {
        try await withTestServer { server in
            let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: via.transport)
            let family = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: family.credential)
            let invitation = try await parent.createPairing(CreatePairingRequest(role: .parent))
            let accepted = try await anonymous.acceptPairing(id: invitation.pairing.id, token: invitation.token, device: .init(name: "Dad's Mac", platform: .macos, timeZone: "UTC"))
            #expect(accepted.device.role == .parent && accepted.device.status == .awaitingConfirmation)
            #expect(await failure { try await anonymous.acceptPairing(id: invitation.pairing.id, token: invitation.token, device: .init(name: "Again", platform: .macos, timeZone: "UTC")) }?.code == .pairingExpired)
        }
    }

    /// A browser shows a code, the parent takes it, the browser claims its credential (§3.1).
    @Test(arguments: TestTransport.allCases) func aDeviceSignsInByTheCodeItShows(_ via: TestTransport) async throws {
        try await withTestServer { server in
            let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: via.transport)
            let family = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: family.credential)
            let started = try await anonymous.startSignIn(device: .init(name: "Kitchen browser", platform: .web, timeZone: "UTC"))
            #expect(try await anonymous.claimSignIn(secret: started.secret).signIn.status == .waiting)
            let pairing = try await parent.takeSignIn(qrPayload: started.qrPayload)
            let claimed = try await anonymous.claimSignIn(secret: started.secret)
            #expect(claimed.pairing?.verificationEmoji == pairing.verificationEmoji)
            let browser = anonymous.authenticated(as: try #require(claimed.credential))
            #expect(try await parent.confirmPairing(pairing.id).status == .confirmed)
            #expect(try await browser.me().platform == .web)
            #expect(await failure { try await parent.takeSignIn(code: started.signIn.code) }?.code == .pairingExpired)
        }
    }

    @Test(arguments: TestTransport.allCases) func anUnreachableServerIsTryAgainLater(_ via: TestTransport) async throws {
        let port = try freePort()
        let seen = Mutex<[RequestMetrics]>([])
        let client = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, transport: via.transport) { metrics in
            seen.withLock { $0.append(metrics) }
        }
        #expect(await failure { try await client.live() }?.code == .tryAgainLater)
        #expect(seen.withLock { $0.map { [$0.method, $0.path, $0.status.map(String.init) ?? "none"] } } == [["GET", "/health/live", "none"]])
    }

    /// The observer hears every exchange, answered or refused, with the path and not the query,
    /// and keeps hearing through `authenticated(as:)`.
    @Test(arguments: TestTransport.allCases) func theObserverIsToldOfEveryExchange(_ via: TestTransport) async throws {
        try await withTestServer { server in
            let seen = Mutex<[RequestMetrics]>([])
            let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: via.transport) { metrics in
                seen.withLock { $0.append(metrics) }
            }
            let family = try await anonymous.createFamily(.init(name: "Mom's iPhone", platform: .ios, timeZone: "UTC"))
            let parent = anonymous.authenticated(as: family.credential)
            _ = try await parent.poll(since: nil, timeout: 0)
            #expect(await failure { try await parent.zoneChanges("no-such-zone", since: nil) }?.code == .zoneNotFound)
            let exchanges = seen.withLock { $0 }
            #expect(exchanges.map { "\($0.method) \($0.path) \($0.status ?? 0)" } == ["POST /v1/families 201", "GET /v1/poll 200", "GET /v1/zones/no-such-zone/changes 404"])
            #expect(exchanges.allSatisfy { $0.duration > .zero })
        }
    }
}

/// The error a call failed with, nil if it succeeded.
func failure<Value>(_ call: () async throws -> Value) async -> FamilySyncError? {
    do {
        _ = try await call()
        return nil
    } catch {
        return error as? FamilySyncError
    }
}
