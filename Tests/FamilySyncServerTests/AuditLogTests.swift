@testable import FamilySyncApp
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
@testable import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import HTTPTypes
import Testing

/// The audit log (§15.4): a parent's changes to a child's rules are recorded with who, what, when
/// and from where, in the transaction of the change; a co-parent reads them, a child reads
/// nothing; a child's own writes are not a parent's change; parents' reads are counted per day.
@Suite struct AuditLogTests {
    static func audit(_ server: TestServer, _ device: TestDevice, _ query: String = "") async throws -> AuditPage {
        let reply = try await server.send(.get, "/v1/audit\(query)", credential: device.credential)
        #expect(reply.status == .ok, "\(String(buffer: reply.body))")
        return try reply.decode(AuditPage.self)
    }

    @Test func aCoParentSeesWhatTheOtherChangedAndAChildReadsNothing() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let (_, coParent) = try await server.pair(by: parent, role: .parent)
            let childMember = try await server.memberID(of: child)
            let parentMember = try await server.memberID(of: parent)
            let zone = Member.zoneName(of: childMember)
            let budget = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json: BudgetRecordTests.write("Budget", "budget-social", BudgetRecordTests.budget))
            #expect(budget.status == .ok, "\(String(buffer: budget.body))")
            _ = try await server.sendCommand(#"{"commandType":"block"}"#, to: child, by: parent)
            let pin = try await server.send(.put, "/v1/members/\(childMember.lowercased)/pin", credential: parent.credential, json: #"{"pin":"2468"}"#)
            #expect(pin.status == .noContent)
            // The child publishes the apps it picked: its own write, not a parent's change.
            let apps = try await server.send(.post, "/v1/zones/child-\(child.deviceID.lowercased)/records/modify", credential: child.credential, json:
                #"{"operations":[{"operationType":"create","record":{"recordName":"app","recordType":"AppConfiguration","fields":{"logicalID":"a","displayName":"A","category":"reward","isEnabled":true,"blockingEnabled":true}}}]}"#)
            #expect(apps.status == .ok, "\(String(buffer: apps.body))")

            let page = try await Self.audit(server, coParent)
            let byParent = page.events.filter { $0.actor.deviceId == parent.deviceID }
            // Newest first: the PIN, the command, the budget, then the pairings.
            #expect(byParent.prefix(3).map { "\($0.action) \($0.subjectType) \($0.subject ?? "")" } == [
                "record.saved DeviceSettings parent-pin", "record.saved ConfigurationCommand \(byParent.dropFirst().first?.subject ?? "?")",
                "record.saved Budget budget-social",
            ])
            for event in byParent.prefix(3) {
                #expect(event.memberId == childMember && event.actor.memberId == parentMember && event.actor.role == "parent")
                #expect(event.actor.address == "127.0.0.1")
            }
            #expect(page.events.contains { $0.action == "pairing.confirmed" && $0.subjectType == "pairing" })
            #expect(!page.events.contains { $0.subjectType == "AppConfiguration" }, "the child's own write")
            #expect(page.events.map(\.id) == page.events.map(\.id).sorted { Int($0)! > Int($1)! })

            // Only what concerns one member; and a page at a time.
            let filtered = try await Self.audit(server, parent, "?member=\(childMember.lowercased)")
            #expect(!filtered.events.isEmpty && filtered.events.allSatisfy { $0.memberId == childMember })
            let first = try await Self.audit(server, parent, "?limit=2")
            let cursor = try #require(first.cursor)
            let second = try await Self.audit(server, parent, "?limit=2&cursor=\(cursor)")
            #expect(first.events.count == 2 && second.events.first.map { Int($0.id)! < Int(cursor)! } == true)
            #expect(Array((first.events + second.events).map(\.id)) == Array(page.events.prefix(4).map(\.id)))

            // A child reads nothing of it.
            for uri in ["/v1/audit", "/v1/audit/reads?from=2026-01-01&to=2026-01-02"] {
                let refused = try await server.send(.get, uri, credential: child.credential)
                #expect(refused.status == .forbidden && refused.errorCode == "ACCESS_DENIED")
            }
        }
    }

    /// Fetching its pending commands marks them delivered: the server writes that on the child's
    /// request, and it is the child's own write as much as the result it reports, so neither is
    /// logged.
    @Test func aChildsFetchAndResultOfItsCommandsAreNotLogged() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let command = try await server.sendCommand(#"{"commandType":"block"}"#, to: child, by: parent)
            let before = try await Self.audit(server, parent).events
            #expect(before.contains { $0.subjectType == "ConfigurationCommand" && $0.subject == "command-\(command.commandId)" }, "the parent's command is logged")
            let delivered = try await server.commands(of: child, as: child, status: "pending")
            #expect(delivered.map(\.commandId) == [command.commandId] && delivered.first?.status == .delivered)
            let result = try await server.send(.post, "/v1/commands/\(command.commandId)/result", credential: child.credential, json: #"{"status":"executed"}"#)
            #expect(result.status == .ok, "\(String(buffer: result.body))")
            let after = try await Self.audit(server, parent).events
            #expect(after == before, "logged since: \(after.dropLast(before.count).map { "\($0.action) \($0.actor.role) \($0.subjectType)" })")
        }
    }

    /// A parent's fetch that finds a command past its time marks it expired: the clock's doing,
    /// not a command sent or cancelled, so nothing is logged.
    @Test func aCommandThatExpiresIsNotLoggedAsSaved() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let command = try await server.sendCommand(#"{"commandType":"block","expiresInSeconds":60}"#, to: child, by: parent)
            let before = try await Self.audit(server, parent).events
            server.clock.advance(by: 61)
            let listed = try await server.commands(of: child, as: parent)
            #expect(listed.first { $0.commandId == command.commandId }?.status == .expired)
            let after = try await Self.audit(server, parent).events
            #expect(after == before, "logged since: \(after.dropLast(before.count).map { "\($0.action) \($0.actor.role) \($0.subjectType)" })")
        }
    }

    @Test func aFailedChangeLeavesNoEntry() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let zone = Member.zoneName(of: try await server.memberID(of: child))
            let before = try await Self.audit(server, parent).events
            // The second operation is refused, so the first is not written, nor audited.
            let reply = try await server.send(.post, "/v1/zones/\(zone)/records/modify", credential: parent.credential, json:
                #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"budget-a","recordType":"Budget","fields":\#(BudgetRecordTests.budget)}},{"operationType":"forceReplace","record":{"recordName":"budget-b","recordType":"Budget","fields":{"budgetID":"b"}}}]}"#)
            #expect(reply.status == .badRequest)
            #expect(try await Self.audit(server, parent).events == before)
        }
    }

    @Test func parentsReadsAreCountedPerDayAndChildrensAreNot() async throws {
        try await withTestServer { server in
            let parent = try await server.createFamily()
            let (_, child) = try await server.pair(by: parent)
            let member = try await server.memberID(of: child)
            let parentMember = try await server.memberID(of: parent)
            let summaries = "/v1/members/\(member.lowercased)/summaries?from=2026-11-01&to=2026-11-07"
            for device in [parent, parent, child] {
                #expect(try await server.send(.get, summaries, credential: device.credential).status == .ok)
            }
            // A refused read is no read.
            #expect(try await server.send(.get, "/v1/members/\(member.lowercased)/summaries?from=x&to=y", credential: parent.credential).status == .badRequest)
            #expect(try await server.send(.get, "/v1/devices/\(child.deviceID.lowercased)/health", credential: parent.credential).status == .ok)
            let today = DailySummaryCalculator.day(of: server.clock.now(), in: .gmt)
            // Counted in the instance, written every 30 s: now, for the test.
            await server.flushReadCounts()
            let reply = try await server.send(.get, "/v1/audit/reads?from=\(today)&to=\(today)", credential: parent.credential)
            #expect(reply.status == .ok, "\(String(buffer: reply.body))")
            let counts = try reply.decode(AuditReadsList.self).days
            #expect(Set(counts.map { "\($0.date) \($0.route) \($0.reads)" }) == [
                "\(today) GET /v1/members/{id}/summaries 2", "\(today) GET /v1/devices/{id}/health 1",
            ])
            #expect(counts.allSatisfy { $0.memberId == parentMember })
        }
    }

    /// One flush writes every family's counts in one statement, adding to what is there; a reader
    /// erased meanwhile is skipped, and the others' counts are written all the same.
    @Test func oneFlushAddsEveryFamilysCountsAndSkipsAnErasedReader() async throws {
        try await withTestServer { server in
            let (first, second) = (try await server.createFamily(), try await server.createFamily())
            let (firstMember, secondMember) = (try await server.memberID(of: first), try await server.memberID(of: second))
            let store = PostgresAuditStore(database: server.database, logger: testLogger)
            func key(_ family: TestDevice, _ member: UUID) -> AuditReadsKey {
                AuditReadsKey(familyID: family.familyID, date: "2026-11-26", readerMemberID: member, route: "GET /v1/members/{id}/summaries")
            }
            try await store.addReads([key(first, firstMember): 2, key(second, secondMember): 1, key(second, UUID()): 5])
            try await store.addReads([key(first, firstMember): 3])
            let firsts = try await store.reads(familyID: first.familyID, from: "2026-11-26", to: "2026-11-26")
            let seconds = try await store.reads(familyID: second.familyID, from: "2026-11-26", to: "2026-11-26")
            #expect(firsts.map(\.readerMemberID) == [firstMember] && firsts.map(\.reads) == [5])
            #expect(seconds.map(\.readerMemberID) == [secondMember] && seconds.map(\.reads) == [1])
        }
    }

    /// The instance's tally: counts add up per key, a take empties it, a failed flush's counts come
    /// back added to what came since.
    @Test func theTallyAddsTakesAndRestores() {
        let tally = ReadTally()
        let family = UUID(), member = UUID()
        let key = AuditReadsKey(familyID: family, date: "2026-11-26", readerMemberID: member, route: "GET /v1/members/{id}/summaries")
        let other = AuditReadsKey(familyID: family, date: "2026-11-26", readerMemberID: member, route: "GET /v1/devices/{id}/health")
        tally.count(key); tally.count(key); tally.count(other)
        let taken = tally.take()
        #expect(taken == [key: 2, other: 1] && tally.take().isEmpty)
        tally.count(key)
        tally.restore(taken)
        #expect(tally.take() == [key: 3, other: 1])
    }

    /// Every route the read counts name is one the router serves, spelled as it names it: a
    /// misspelt one would count nothing, silently.
    @Test func theCountedRoutesAreServedRoutes() {
        let served = Set(servedRoutes().flatMap { path, methods in methods.map { "\($0) \(path)" } })
        #expect(AuditReadsKey.countedRoutes.subtracting(served).isEmpty, "\(AuditReadsKey.countedRoutes.subtracting(served).sorted())")
    }
}
