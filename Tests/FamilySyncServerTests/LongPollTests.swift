import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension TestServer {
    func poll(_ device: TestDevice, since: String? = nil, timeout: Double = 60, within limit: Duration = .seconds(90)) async throws -> Reply {
        var query = ["timeout=\(timeout)"]
        if let since { query.append("since=\(since)") }
        return try await send(.get, "/v1/poll?" + query.joined(separator: "&"), credential: device.credential, timeout: limit)
    }

    /// A poll in the background, returned once the server holds it (`held` polls in all).
    func holdPoll(_ device: TestDevice, since: String? = nil, timeout: Double = 60, within limit: Duration = .seconds(90), held: Int = 1) async throws -> Task<Reply, any Error> {
        let task = Task { try await poll(device, since: since, timeout: timeout, within: limit) }
        do {
            try await waitForHeldPolls(held)
        } catch {
            // Say what became of the poll: answered early, or never arrived.
            task.cancel()
            let outcome = await task.result
            throw TestFailure("\(error); the poll: \((try? outcome.get()).map { "\($0.status) \(String(buffer: $0.body))" } ?? "\(outcome)")")
        }
        return task
    }

    /// The device's database change token, as of now.
    func databaseToken(_ device: TestDevice) async throws -> String {
        let reply = try await send(.get, "/v1/changes", credential: device.credential)
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
        return try reply.decode(DatabaseChangesResponse.self).changeToken
    }
}

extension TestServer.Reply {
    var poll: PollResponse? { try? decode(PollResponse.self) }
}

extension TestServer {
    /// `hb_requests` of `GET /v1/poll` answered 401, as the server's metrics count it now.
    func pollsAnswered401() async throws -> Int {
        let metrics = String(buffer: try await send(.get, "/metrics").body)
        let counted = #"hb_requests{http_route="/v1/poll",http_request_method="GET",http_response_status_code="401"}"#
        return metrics.split(separator: "\n").first { $0.hasPrefix(counted) }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }
}

/// PROTOCOL §6 over real HTTP: what wakes a held poll, what does not, and how it ends.
@Suite struct LongPollTests {
    @Test func aParentsWriteWakesTheChildsHeldPoll() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Device.zoneName(forChild: child.deviceID)
            let token = try await server.databaseToken(child)

            let held = try await server.holdPoll(child, since: token)
            try await server.configure(zone, by: parent)
            let reply = try await held.value
            #expect(reply.status == .ok)
            // The connection stays open for the next poll (`ConnectionEndWatcher` watches it).
            #expect(reply.headers[.connection] == nil)
            let answer = try #require(reply.poll)
            #expect(answer.changed)
            #expect(answer.zones == [zone])
            #expect(answer.devices == [])

            // The new token has seen that change: nothing more until the next one.
            let again = try #require(try await server.poll(child, since: answer.changeToken, timeout: 0).poll)
            #expect(again == PollResponse(changed: false, changeToken: answer.changeToken))
            #expect(server.heldPolls == 0)
        }
    }

    /// A change after the token is answered from the first read, without waiting (a wait would
    /// end in the timeout's `changed: false`, as nothing else is written).
    @Test func aChangeAfterTheTokenIsAnsweredAtOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let token = try await server.databaseToken(child)
            try await server.configure(Device.zoneName(forChild: child.deviceID), by: parent)
            let answer = try #require(try await server.poll(child, since: token, timeout: 30, within: .seconds(20)).poll)
            #expect(answer.changed)
            #expect(answer.zones == [Device.zoneName(forChild: child.deviceID)])
        }
    }

    /// Without `since` a poll waits for the next change after it arrived (CouchDB's since=now).
    @Test func withoutATokenItWaitsForTheNextChange() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            try await server.configure("family", by: parent)
            let quiet = try #require(try await server.poll(child, timeout: 0.2).poll)
            #expect(!quiet.changed)
            #expect(quiet.zones == nil)

            let held = try await server.holdPoll(child)
            try await server.configure("family", by: parent, name: "app-2")
            let answer = try #require(try await held.value.poll)
            #expect(answer.changed)
            #expect(answer.zones == ["family"])
            // The token of the quiet answer stood before that change, and still sees it.
            let since = try #require(try await server.poll(child, since: quiet.changeToken, timeout: 0).poll)
            #expect(since.changed)
        }
    }

    /// A child sees its own zone and the family zone; another zone's writes do not answer its poll.
    @Test func aChildsPollIgnoresZonesItCannotSee() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, sibling) = try await server.pair(by: parent)
            let token = try await server.databaseToken(child)
            let created = try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"extra"}"#)
            #expect(created.status == .created)
            try await server.configure("extra", by: parent)
            try await server.configure(Device.zoneName(forChild: sibling.deviceID), by: parent)
            let answer = try #require(try await server.poll(child, since: token, timeout: 1).poll)
            #expect(answer == PollResponse(changed: false, changeToken: token))
            // The parent sees all of it.
            let parentToken = try await server.databaseToken(parent)
            try await server.configure("extra", by: parent, name: "app-2")
            let parents = try #require(try await server.poll(parent, since: parentToken, timeout: 0).poll)
            #expect(parents.zones == ["extra"])
        }
    }

    /// "Visible" includes the device's own status: a child awaiting confirmation wakes when the
    /// parent confirms, and then sees every zone it was given.
    @Test func aChildAwaitingConfirmationWakesWhenConfirmed() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let invitation = try await server.createPairing(by: parent)
            let (_, child) = try await server.accept(invitation)
            let held = try await server.holdPoll(child)
            let confirm = try await server.send(.post, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: parent.credential)
            #expect(confirm.status == .ok)
            let answer = try #require(try await held.value.poll)
            #expect(answer.changed)
            #expect(answer.devices == [child.deviceID.lowercased])
            // Its own zone, the family's, and its member's (§8).
            let me = try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self)
            let member = try #require(me.memberId)
            #expect(Set(answer.zones ?? []) == ["family", Device.zoneName(forChild: child.deviceID), Member.zoneName(of: member)])
        }
    }

    @Test func aChildAwaitingConfirmationIsToldAtOnceWhenRejected() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let invitation = try await server.createPairing(by: parent)
            let (_, child) = try await server.accept(invitation)
            let held = try await server.holdPoll(child, within: .seconds(20))
            let reject = try await server.send(.post, "/v1/pairings/\(invitation.pairing.id.lowercased)/reject", credential: parent.credential)
            #expect(reject.status == .ok)
            let reply = try await held.value
            #expect(reply.status == .unauthorized)
            #expect(reply.errorCode == "AUTHENTICATION_REQUIRED")
        }
    }

    /// A parent's pairing screen wakes when the child accepts, to show the emoji.
    @Test func aParentWakesWhenAChildAccepts() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let token = try await server.databaseToken(parent)
            let invitation = try await server.createPairing(by: parent)
            let held = try await server.holdPoll(parent, since: token)
            let (_, child) = try await server.accept(invitation)
            let answer = try #require(try await held.value.poll)
            #expect(answer.changed)
            #expect(answer.devices == [child.deviceID.lowercased])
            #expect(answer.zones == [])
        }
    }

    @Test func aDeviceRevokedWhileItWaitsGets401AtOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let countedBefore = try await server.pollsAnswered401()
            let held = try await server.holdPoll(child, since: try await server.databaseToken(child), within: .seconds(20))
            let revoke = try await server.send(.delete, "/v1/devices/\(child.deviceID.lowercased)", credential: parent.credential)
            #expect(revoke.status == .noContent)
            let reply = try await held.value
            #expect(reply.status == .unauthorized)
            #expect(reply.errorCode == "AUTHENTICATION_REQUIRED")
            // An error of a held poll leaves the connection open as any other answer does.
            #expect(reply.headers[.connection] == nil)

            // A family deleted while its parent waits: the same.
            let own = try await server.holdPoll(parent, within: .seconds(20))
            let delete = try await server.send(.delete, "/v1/families/me", credential: parent.credential)
            #expect(delete.status == .noContent)
            #expect(try await own.value.status == .unauthorized)

            // The request metrics count each by the status it answered with after its wait, not
            // the 200 its handler returned when it began to wait (`PollParking`). (The counters
            // are the process's, shared with the tests running beside this one: hence "at least".)
            #expect(try await server.pollsAnswered401() - countedBefore >= 2)
        }
    }

    /// At most four polls a device: the fifth answers the oldest `changed: false`.
    @Test func aFifthPollAnswersTheOldest() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let token = try await server.databaseToken(child)
            // The oldest must be answered long before its own timeout.
            let oldest = try await server.holdPoll(child, since: token, within: .seconds(20), held: 1)
            var others: [Task<TestServer.Reply, any Error>] = []
            for held in 2...LongPollRules.maximumPerDevice {
                others.append(try await server.holdPoll(child, since: token, held: held))
            }
            // A parent's poll does not count against the child's four.
            let parents = try await server.holdPoll(parent, held: LongPollRules.maximumPerDevice + 1)
            others.append(Task { try await server.poll(child, since: token) })
            let first = try #require(try await oldest.value.poll)
            #expect(first == PollResponse(changed: false, changeToken: token))
            try await server.waitForHeldPolls(LongPollRules.maximumPerDevice + 1)
            // The four others and the parent's are still held: a write answers each of them.
            try await server.configure(Device.zoneName(forChild: child.deviceID), by: parent)
            for other in others {
                #expect(try await other.value.poll?.changed == true)
            }
            #expect(try await parents.value.poll?.changed == true)
            #expect(server.heldPolls == 0)
        }
    }

    /// A poll's connection carries the next poll: a device holds its poll again without a new
    /// connection, and a client that then closes that connection still frees its place.
    @Test func theNextPollGoesOnTheSameConnection() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            @Sendable func poll(_ timeout: String) -> String {
                "GET /v1/poll?timeout=\(timeout) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(parent.credential)\r\n\r\n"
            }
            let descriptor = try connectedSocket(port: server.port)
            let answers = try await offCooperativePool { () throws -> [String] in
                var time = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
                var answers: [String] = []
                for _ in 0..<3 {
                    // No SIGPIPE if the server closed it: the test fails on the answer instead.
                    _ = poll("0.2").withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                    var received: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while !String(decoding: received, as: UTF8.self).hasSuffix("}") {
                        let count = recv(descriptor, &buffer, buffer.count, 0)
                        guard count > 0 else { break }
                        received += buffer[0..<count]
                    }
                    answers.append(String(decoding: received, as: UTF8.self))
                }
                return answers
            }
            #expect(answers.count == 3)
            for answer in answers {
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
                #expect(answer.contains(#""changed":false"#), "\(answer)")
            }
            // A fourth, held on the same connection, ends when the client closes it.
            _ = poll("60").withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            try await server.waitForHeldPolls(1)
            close(descriptor)
            try await server.waitForHeldPolls(0)
        }
    }

    /// A poll that waits is answered outside the middleware chain (`PollParking`); its answer is
    /// still a whole one: the chain's headers (the request id), a `Content-Length` rather than
    /// chunks, and a request pipelined behind it on the connection answered after it, in order.
    @Test func aHeldPollsAnswerIsWholeAndPipelinedRequestsFollowIt() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let token = try await server.databaseToken(child)
            let requests = """
                GET /v1/poll?timeout=60&since=\(token) HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: held-poll-1\r\nAuthorization: Bearer \(child.credential)\r\n\r\n\
                GET /v1/devices HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: behind-it\r\nAuthorization: Bearer \(child.credential)\r\n\r\n
                """
            let descriptor = try openExchange(port: server.port, request: requests)
            defer { close(descriptor) }
            try await server.waitForHeldPolls(1)
            // The write that wakes it; the pipelined request waits behind the poll until then.
            let zone = Device.zoneName(forChild: child.deviceID)
            try await server.configure(zone, by: parent)
            let received = try await offCooperativePool { () throws -> String in
                var time = timeval(tv_sec: 20, tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while Self.wholeAnswers(in: String(decoding: received, as: UTF8.self)).count < 2 {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    guard count > 0 else { break }
                    received += buffer[0..<count]
                }
                return String(decoding: received, as: UTF8.self)
            }
            let answers = Self.wholeAnswers(in: received)
            try #require(answers.count == 2, "\(received)")
            let (pollHead, pollBody) = answers[0]
            #expect(pollHead.hasPrefix("HTTP/1.1 200"), "\(pollHead)")
            #expect(pollHead.lowercased().contains("x-request-id: held-poll-1"), "\(pollHead)")
            #expect(!pollHead.lowercased().contains("transfer-encoding"), "\(pollHead)")
            #expect(pollHead.lowercased().contains("content-type: application/json"), "\(pollHead)")
            let answer = try JSONDecoder().decode(PollResponse.self, from: Data(pollBody.utf8))
            #expect(answer.changed && answer.zones == [zone])
            let (behindHead, behindBody) = answers[1]
            #expect(behindHead.hasPrefix("HTTP/1.1 200"), "\(behindHead)")
            #expect(behindHead.lowercased().contains("x-request-id: behind-it"), "\(behindHead)")
            #expect(behindBody.contains(child.deviceID.lowercased), "\(behindBody)")
        }
    }

    /// The complete answers at the start of `text`: head and body, by `Content-Length`.
    static func wholeAnswers(in text: String) -> [(head: String, body: String)] {
        var answers: [(String, String)] = []
        var rest = Substring(text)
        while let end = rest.range(of: "\r\n\r\n") {
            let head = String(rest[..<end.lowerBound])
            guard let line = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
                let length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
            else { return answers }
            let bytes = Array(rest[end.upperBound...].utf8)
            guard bytes.count >= length else { return answers }
            answers.append((head, String(decoding: bytes[..<length], as: UTF8.self)))
            rest = Substring(String(decoding: bytes[length...], as: UTF8.self))
        }
        return answers
    }

    @Test func aClientThatGoesAwayFreesItsPlaceAtOnce() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let descriptor = try openExchange(port: server.port, request: """
                GET /v1/poll?timeout=60 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(parent.credential)\r\n\r\n
                """)
            try await server.waitForHeldPolls(1)
            close(descriptor)
            try await server.waitForHeldPolls(0)
        }
    }

    /// Graceful shutdown answers every held poll `changed: false` before the server exits (rather
    /// than holding the shutdown for up to a minute).
    @Test func shutdownAnswersHeldPolls() async throws {
        let (held, token) = try await withTestServer { server in
            let parent = try await server.createFamily()
            let token = try await server.databaseToken(parent)
            return (try await server.holdPoll(parent, since: token, within: .seconds(20)), token)
        }
        let reply = try await held.value
        #expect(reply.status == .ok)
        #expect(reply.poll == PollResponse(changed: false, changeToken: token))
    }

    /// Two instances on one database: a write on one wakes a poll held on the other.
    @Test func aWriteOnOneInstanceWakesAPollHeldOnAnother() async throws {
        try await withTestServer { first in
            let parent = try await first.createFamily()
            let (_, child) = try await first.pair(by: parent)
            let token = try await first.databaseToken(child)
            try await withTestServer(databaseURL: first.databaseURL) { second in
                let held = try await second.holdPoll(child, since: token)
                try await first.configure(Device.zoneName(forChild: child.deviceID), by: parent)
                let answer = try #require(try await held.value.poll)
                #expect(answer.changed)
                #expect(answer.zones == [Device.zoneName(forChild: child.deviceID)])
                #expect(first.heldPolls == 0)
            }
        }
    }

    /// The database restarts under held polls: they keep holding, and once the listener is back
    /// (it wakes every poll to read again) a change made while it was away is not lost.
    @Test func heldPollsRecoverWhenTheDatabaseRestarts() async throws {
        try await withTemporaryDirectory { directory in
            let embedded = EmbeddedPostgres(
                configuration: .init(dataDirectory: directory + "/data", durability: .throwaway), binaries: try PostgresBinaries.find(), logger: testLogger
            )
            let url = try await embedded.start()
            do {
                // A listener slow to come back, so that the write below lands while it is away.
                try await withTestServer(databaseURL: url, listenerBackoff: .seconds(1)) { server in
                    let parent = try await server.createFamily()
                    let (_, child) = try await server.pair(by: parent)
                    let zone = Device.zoneName(forChild: child.deviceID)
                    let held = try await server.holdPoll(child, since: try await server.databaseToken(child), within: .seconds(30))

                    try await embedded.stop()
                    try await embedded.start()
                    try await server.configureRetrying(zone, by: parent)
                    let reply = try await held.value
                    let answer = try #require(reply.poll, "the poll: \(reply.status) \(String(buffer: reply.body))")
                    #expect(answer.changed)
                    #expect(answer.zones == [zone])

                    // And the listener works again: the next write wakes the next poll.
                    let next = try await server.holdPoll(child, since: answer.changeToken)
                    try await server.configure(zone, by: parent, name: "app-2")
                    #expect(try await next.value.poll?.changed == true)
                }
            } catch {
                try? await embedded.stop()
                throw error
            }
            try await embedded.stop()
        }
    }
}

extension TestServer {
    /// A write while the server's pool still holds connections the restart closed: those fail
    /// with 503 until the pool has made new ones.
    func configureRetrying(_ zone: String, by parent: TestDevice) async throws {
        for _ in 0..<50 {
            let reply = try await send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: Self.write(zone, "app-1"))
            if reply.status == .ok { return }
            #expect(reply.status == .serviceUnavailable, "\(String(buffer: reply.body))")
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("the write never went through after the restart")
    }
}
