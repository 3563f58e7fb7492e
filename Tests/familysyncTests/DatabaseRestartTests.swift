import FamilySyncClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ReliabilitySuites {
    /// The database going away under a running server process and coming back: the embedded one
    /// killed (the server restarts it), and an operator's one stopped and started (the server only
    /// reconnects). Answers meanwhile are 503 with Retry-After, never 500, never a hang.
    @Suite(.timeLimit(.minutes(3))) struct DatabaseRestartTests {
        static let base = Date().addingTimeInterval(-86_400)
        /// This process's record ids: `batch(n)` is the same upload each time it is made.
        static let idPrefix = UUID().uuidString.prefix(24)

        /// Ten one-second sessions of a child, the same for the same round.
        static func batch(_ round: Int) -> UsageUploadRequest {
            UsageUploadRequest(timeZone: "UTC", records: (0..<10).map { index in
                let slot = round * 10 + index
                let id = UUID(uuidString: idPrefix + String(format: "%012d", slot))!
                return UsageRecordBody.second(slot, after: base, app: index % 3, id: id)
            })
        }

        /// An upload answered within the hang bound: acknowledged, or the server's 503.
        static func upload(_ request: UsageUploadRequest, by child: PairedFamily.Child) async throws -> Bool {
            try await failingIfHung(after: .seconds(20), "an upload while the database is away") {
                do throws(FamilySyncError) {
                    _ = try await child.client.uploadUsage(request)
                    return true
                } catch {
                    #expect(error.code == .tryAgainLater && !error.isUnanswered && error.retryAfter != nil, "\(error)")
                    return false
                }
            }
        }

        /// A poll held now (counted on /metrics) that a child's upload must wake: the change
        /// listener works. Without it the poll would wait its full 60 s. The poll answered before
        /// it must first be counted gone: its client can have the answer a moment before the
        /// server's gauge drops, and a count taken then would wait for a second poll for ever.
        static func expectPollsWake(_ family: PairedFamily, on server: ServerProcess, round: Int) async throws {
            try await server.waitForMetric("familysync_polls_active", atMost: 0)
            let held = Task { try await family.parent.poll(since: nil, timeout: 60) }
            try await server.waitForMetric("familysync_polls_active", atLeast: 1)
            #expect(try await upload(batch(round), by: family.children[0]))
            let answer = try await failingIfHung(after: .seconds(20), "a held poll after the database came back") { try await held.value }
            #expect(answer.changed)
        }

        @Test func theEmbeddedPostmasterKilledIsRestartedAndKeepsEveryAcknowledgedWrite() async throws {
            try await withTemporaryDirectory { directory in
                let port = try freePort()
                let data = directory + "/data"
                let server = try await ServerProcess.start(["serve", "--port", "\(port)", "--data-dir", data], port: port, workingDirectory: directory)
                defer { server.signal(SIGKILL) }
                try await server.waitUntilReady()
                let family = try await PairedFamily.create(on: server.client)
                let child = family.children[0]
                var acknowledged: [UsageUploadRequest] = []
                for round in 0..<3 where try await Self.upload(Self.batch(round), by: child) { acknowledged.append(Self.batch(round)) }
                #expect(acknowledged.count == 3)
                let heldAcross = Task { try await family.parent.poll(since: nil, timeout: 60) }
                try await server.waitForMetric("familysync_polls_active", atLeast: 1)

                let cluster = EmbeddedPostgres(configuration: .init(dataDirectory: data), binaries: try PostgresBinaries.find(), logger: testLogger)
                let postmaster = try #require(cluster.postmasterPID)
                kill(postmaster, SIGKILL)
                // Uploads go on: each is answered, 503 until the database is back, then acknowledged.
                var round = 3
                var afterKill = 0
                while afterKill < 3 {
                    let request = Self.batch(round)
                    if try await Self.upload(request, by: child) {
                        acknowledged.append(request)
                        afterKill += 1
                    } else {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    round += 1
                    #expect(round < 1000, "no upload acknowledged after the kill")
                    if round >= 1000 { return }
                }
                try await server.waitUntilReady()
                #expect(try await server.metric("familysync_embedded_database_restarts_total") == 1)
                #expect(try await server.metric("familysync_embedded_database_up") == 1)
                #expect(cluster.postmasterPID != postmaster)

                // The poll held across the kill is answered (the uploads changed the child's zone).
                let across = try await failingIfHung(after: .seconds(70), "the poll held across the kill") { try await heldAcross.value }
                #expect(across.changed)
                try await Self.expectPollsWake(family, on: server, round: round)
                for request in acknowledged {
                    #expect(try await child.client.uploadUsage(request).duplicates == request.records.count, "an acknowledged upload was lost")
                }
                server.signal(SIGTERM)
                #expect(try await server.waitForExit() == .exited(0))
                #expect(processes(mentioning: cluster.clusterDirectory).isEmpty)
            }
        }

        @Test func theOperatorsDatabaseStoppedAndStartedIsReconnectedWithoutARestart() async throws {
            try await withTemporaryDirectory { directory in
                let cluster = EmbeddedPostgres(configuration: .init(dataDirectory: directory + "/db"), binaries: try PostgresBinaries.find(), logger: testLogger)
                let url = try await cluster.start()
                let port = try freePort()
                let server = try await ServerProcess.start(
                    ["serve", "--port", "\(port)", "--database-url", url.connectionString], port: port, workingDirectory: directory
                )
                defer { server.signal(SIGKILL) }
                do {
                    try await server.waitUntilReady()
                    let family = try await PairedFamily.create(on: server.client)
                    let child = family.children[0]
                    #expect(try await Self.upload(Self.batch(0), by: child))
                    let heldAcross = Task { try await family.parent.poll(since: nil, timeout: 60) }
                    try await server.waitForMetric("familysync_polls_active", atLeast: 1)

                    // What `pg_ctl stop -m immediate` does: SIGQUIT to the postmaster.
                    EmbeddedPostgres.stopImmediately(clusterDirectory: cluster.clusterDirectory)
                    while cluster.isPostmasterAlive { try await Task.sleep(for: .milliseconds(20)) }
                    // One upload while it is away: the SDK sends it three times (each 503 with
                    // Retry-After, some 15 s in all), and the stop must stay well inside the held
                    // poll's 60 s for the poll to be held across it, not run out during it.
                    #expect(try await Self.upload(Self.batch(1), by: child) == false)
                    await #expect(throws: FamilySyncError.self) { try await server.client.ready() }

                    try await cluster.restart()
                    try await server.waitUntilReady()
                    #expect(try await Self.upload(Self.batch(4), by: child))
                    #expect(try await child.client.uploadUsage(Self.batch(0)).duplicates == 10, "the write acknowledged before the stop was lost")
                    let across = try await failingIfHung(after: .seconds(70), "the poll held across the stop") { try await heldAcross.value }
                    #expect(across.changed, "the poll held across the stop ran out instead of waking")
                    try await Self.expectPollsWake(family, on: server, round: 5)
                    #expect(!server.stderr.contains("INTERNAL_ERROR"), "stderr:\n\(server.stderr)")
                    server.signal(SIGTERM)
                    #expect(try await server.waitForExit() == .exited(0))
                } catch {
                    try? await cluster.stop()
                    throw error
                }
                try await cluster.stop()
            }
        }
    }
}
