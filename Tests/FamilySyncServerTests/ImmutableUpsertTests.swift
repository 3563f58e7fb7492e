import FamilySyncApp
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServer
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// For Citus: Citus refuses an upsert into a distributed table whose
/// conflict action calls anything not IMMUTABLE ("functions used in the DO UPDATE SET clause of
/// INSERTs on distributed tables must be marked IMMUTABLE", and the same for its `WHERE`), where
/// one PostgreSQL takes it. This test asks one PostgreSQL Citus's question about every upsert the
/// server runs: the server's database logs the parse tree of every statement it is sent
/// (`debug_print_parse`), the server does what runs each upsert of Sources, and every function,
/// operator and aggregate of each conflict action (its `SET`, its `WHERE`, the arbiter's `WHERE`)
/// is looked up in `pg_proc`: each must be `provolatile = 'i'`. As Citus's `contain_mutable_functions`,
/// `CURRENT_TIMESTAMP` and its kin, `nextval` and casts through text count as not immutable.
/// An upsert added to Sources and not run here fails the test until it is.
@Suite struct ImmutableUpsertTests {
    /// A family that runs every upsert of the server, and what a test needs of it.
    struct UsedFamily {
        var parent: TestDevice
        var child: TestDevice
        var childZone: String
        var childMember: UUID
    }

    /// One family doing what runs each `ON CONFLICT … DO UPDATE` of Sources: made (its owned
    /// zones), a child paired and confirmed (its zones), a push token (its registration), records
    /// (the records' upsert) that wake the child by push (the outbox's, merged into a waiting row
    /// the second time), a zone made, deleted and made again (a new incarnation), a heartbeat (the
    /// health rows), retention settings, counted reads, a sign-in, an Apple account linked; and,
    /// for the family's deletion, a pairing naming a member, another member, a PIN with a wrong
    /// try and a recovery code. `server` must send pushes to `receiver`.
    static func useEverything(_ server: TestServer, receiver: WebhookReceiver) async throws -> UsedFamily {
        let (parent, child, zone) = try await PushOutboxTests.registeredChild(Int.random(in: 1..<(1 << 48)), on: server)
        let member = try await server.memberID(of: child)
        // The first push goes at once; later ones wait out the interval (30 s, on the test's clock
        // that stands still) in one row, into which the third write merges.
        try await server.configure(zone, by: parent)
        try await Self.outboxDrained(of: child, server)
        try await server.configure(zone, by: parent, name: "app-2")
        try await server.configure("family", by: parent, name: "note-\(UUID().lowercased)")
        // A keyed write (§1.2.1): the key's upsert with the write, then the answer's.
        let keyed = try await server.send(
            .post, "/v1/zones/family/records/modify", credential: parent.credential, json: TestServer.write("family", "keyed"), headers: [(IdempotencyKey.header, "immutable")]
        )
        #expect(keyed.status == .ok, "\(String(buffer: keyed.body))")

        #expect(try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"notes"}"#).status == .created)
        #expect(try await server.send(.delete, "/v1/zones/notes", credential: parent.credential).status == .noContent)
        #expect(try await server.send(.post, "/v1/zones", credential: parent.credential, json: #"{"zoneName":"notes"}"#).status == .created)
        let memberPairing = try await server.send(.post, "/v1/pairings", credential: parent.credential, json: #"{"role":"child","memberId":"\#(member.lowercased)"}"#)
        #expect(memberPairing.status == .created, "\(String(buffer: memberPairing.body))")
        let grandma = try await server.send(.post, "/v1/members", credential: parent.credential, json: #"{"name":"Grandma","role":"parent"}"#)
        #expect(grandma.status == .created, "\(String(buffer: grandma.body))")

        let heartbeat = try await server.send(
            .post, "/v1/devices/me/health", credential: child.credential, json: #"{"heartbeatAt":"\#(Instant.format(server.clock.now()))","monitoringActive":true}"#
        )
        #expect(heartbeat.status == .ok, "\(String(buffer: heartbeat.body))")
        #expect(try await server.send(.put, "/v1/members/\(member.lowercased)/pin", credential: parent.credential, json: #"{"pin":"2468"}"#).status == .noContent)
        let wrongPIN = try await server.send(.post, "/v1/members/\(member.lowercased)/pin/verify", credential: child.credential, json: #"{"pin":"1357"}"#)
        #expect(wrongPIN.status == .ok, "\(String(buffer: wrongPIN.body))")
        let retention = try await server.send(.put, "/v1/families/me/retention", credential: parent.credential, json: #"{"days":{"usageSessions":30,"audit":90}}"#)
        #expect(retention.status == .ok, "\(String(buffer: retention.body))")
        let read = try await server.send(.get, "/v1/members/\(member.lowercased)/summaries?from=2026-11-01&to=2026-11-07", credential: parent.credential)
        #expect(read.status == .ok, "\(String(buffer: read.body))")
        await server.flushReadCounts()
        #expect(try await server.send(.post, "/v1/families/me/recovery-code", credential: parent.credential).status == .ok)

        let signIn = try await server.send(.post, "/v1/sign-ins", json: #"{"device":{"name":"Chrome on Linux","platform":"web","timeZone":"UTC"}}"#)
        #expect(signIn.status == .created, "\(String(buffer: signIn.body))")
        let code = try signIn.decode(StartSignInResponse.self).signIn.code
        let taken = try await server.send(.post, "/v1/pairings/sign-in", credential: parent.credential, json: #"{"code":"\#(code)"}"#)
        #expect(taken.status == .created, "\(String(buffer: taken.body))")
        // Linking needs a token Apple signed (AppleSignInTests); the store's statements are what matter here.
        let families = PostgresFamilyStore(changeLog: ChangeLog(database: server.database, logger: testLogger), clock: server.clock, logger: testLogger)
        try await families.linkAppleAccount("apple-\(UUID().lowercased)", familyID: parent.familyID, memberID: try await server.memberID(of: parent), as: .server)
        return UsedFamily(parent: parent, child: child, childZone: zone, childMember: member)
    }

    /// Waits until the outbox holds nothing for `device` (its push was sent).
    static func outboxDrained(of device: TestDevice, _ server: TestServer) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await PushOutboxTests.waiting(for: device, on: server) > 0 {
            guard ContinuousClock.now < deadline else { throw TestFailure("the outbox still holds a push for the device") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// An upsert's statement as the database logged it, and what its conflict action calls.
    struct Upsert {
        var statement: String
        var table: String
        /// Function, operator and aggregate functions' oids.
        var functions: Set<Int64>
        /// Expressions Citus holds not immutable whatever their functions (`CURRENT_TIMESTAMP`, `nextval`, a cast through text).
        var mutableNodes: Set<String>
    }

    /// The upserts of the parse trees in `log`: each `ONCONFLICTEXPR` whose action is an update
    /// (2), read from its arbiter's `WHERE` to its `exclRelIndex` (its `SET` and `WHERE` between).
    static func upserts(inLog log: String) -> [Upsert] {
        // A logged message's own line breaks are followed by a tab.
        let lines = log.replacingOccurrences(of: "\n\t", with: " ").split(separator: "\n", omittingEmptySubsequences: true)
        var found: [Upsert] = []
        for (index, line) in lines.enumerated() {
            guard let tree = line.range(of: "DETAIL:  {QUERY "), index > 0, lines[index - 1].hasSuffix("LOG:  parse tree:"),
                  index + 1 < lines.count, let statementStart = lines[index + 1].range(of: "STATEMENT:  ")
            else { continue }
            let dump = line[tree.upperBound...]
            let statement = String(lines[index + 1][statementStart.upperBound...]).split(whereSeparator: \.isWhitespace).joined(separator: " ")
            var rest = dump[...]
            while let action = rest.range(of: "{ONCONFLICTEXPR :action 2 ") {
                guard let start = rest[action.upperBound...].range(of: ":arbiterWhere "),
                      let end = rest[start.upperBound...].range(of: ":exclRelIndex ")
                else { break }
                let conflictAction = rest[start.lowerBound..<end.lowerBound]
                var functions: Set<Int64> = []
                for match in conflictAction.matches(of: #/:(?:funcid|opfuncid|aggfnoid|winfnoid) (\d+)/#) {
                    if let oid = Int64(match.output.1) { functions.insert(oid) }
                }
                var mutableNodes: Set<String> = []
                for match in conflictAction.matches(of: #/\{(SQLVALUEFUNCTION|NEXTVALUEEXPR|COERCEVIAIO|ROWCOMPAREEXPR) /#) {
                    mutableNodes.insert(String(match.output.1))
                }
                let table = statement.firstMatch(of: #/INSERT INTO ([a-z_]+)/#).map { String($0.output.1) } ?? "?"
                found.append(Upsert(statement: statement, table: table, functions: functions, mutableNodes: mutableNodes))
                rest = rest[end.upperBound...]
            }
        }
        return found
    }

    /// How many `DO UPDATE` statements each table has in Sources: each counted for the nearest
    /// `INSERT INTO` before it (comments' lines skipped).
    static func upsertsInSources() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for path in TestPaths.swiftFiles(under: "Sources") {
            var table = "? (\((path as NSString).lastPathComponent))"
            for line in try TestPaths.text(of: path).split(separator: "\n") {
                if line.trimmingPrefix(while: \.isWhitespace).hasPrefix("//") { continue }
                if let insert = line.matches(of: #/INSERT INTO ([a-z_]+)/#).last { table = String(insert.output.1) }
                counts[table, default: 0] += line.ranges(of: "DO UPDATE").count
            }
        }
        return counts.filter { $0.value > 0 }
    }

    @Test(.notOnCitus("reads the embedded PostgreSQL's statement log; on Citus, Citus itself refuses such an upsert, and the pass's writes meet that check"))
    func noUpsertCallsAFunctionThatIsNotImmutable() async throws {
        let url = try await TestPostgres.shared.makeDatabase()
        let logPath = try await TestPostgres.shared.embedded().clusterDirectory + "/postgres.log"
        let logStart = try FileManager.default.attributesOfItem(atPath: logPath)[.size] as? UInt64 ?? 0
        // This connection, opened first, logs nothing; every later session of this database (the
        // server's) logs its parse trees, and no other database of the suite does.
        let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: testLogger)
        do {
            try await Self.check(url: url, logPath: logPath, logStart: logStart, connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static func check(url: DatabaseURL, logPath: String, logStart: UInt64, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            DO $$ BEGIN
                EXECUTE format('ALTER DATABASE %I SET debug_print_parse = on', current_database());
                EXECUTE format('ALTER DATABASE %I SET debug_pretty_print = off', current_database());
            END $$
            """,
            logger: testLogger
        )
        try await withWebhookReceiver { receiver, webhook in
            try await withTestServer(databaseURL: url, push: PushOutboxTests.settings(webhook, receiver)) { server in
                let family = try await Self.useEverything(server, receiver: receiver)
                // The outbox's merge ran, and right: one row waits, with every zone changed since
                // the first push (the writes' two, and the member's of the PIN), each once, in order.
                let rows = try await server.postgres.query(
                    """
                    SELECT array(SELECT jsonb_array_elements_text(payload -> 'zones')) FROM push_outbox
                    WHERE family_id = \(family.child.familyID) AND device_id = \(family.child.deviceID)
                    """,
                    logger: testLogger
                )
                var payloads: [[String]] = []
                for try await zones in rows.decode([String].self) { payloads.append(zones) }
                #expect(payloads.count == 1)
                let zones = payloads.first ?? []
                #expect(Set(zones).isSuperset(of: ["family", family.childZone]) && zones == Set(zones).sorted(), "\(zones)")
            }
        }

        let handle = try #require(FileHandle(forReadingAtPath: logPath))
        try handle.seek(toOffset: logStart)
        let log = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        try handle.close()
        let upserts = Self.upserts(inLog: log)
        let expected = try Self.upsertsInSources()
        #expect(expected.values.reduce(0, +) >= 10, "the scan of Sources found \(expected)")

        // Every upsert of Sources ran: as many distinct statements into each table.
        var ran: [String: Set<String>] = [:]
        for upsert in upserts { ran[upsert.table, default: []].insert(upsert.statement) }
        for (table, count) in expected.sorted(by: { $0.key < $1.key }) {
            #expect((ran[table]?.count ?? 0) >= count, "Sources has \(count) upsert(s) into \(table); this test ran \(ran[table]?.count ?? 0): make useEverything run it")
        }

        let oids = Array(upserts.reduce(into: Set<Int64>()) { $0.formUnion($1.functions) })
        var procedures: [Int64: (name: String, volatility: String)] = [:]
        let rows = try await connection.query(
            "SELECT oid::int8, oid::regprocedure::text, provolatile::text FROM pg_proc WHERE oid::int8 = ANY(\(oids))", logger: testLogger
        )
        for try await (oid, name, volatility) in rows.decode((Int64, String, String).self) { procedures[oid] = (name, volatility) }
        var refused: Set<String> = []
        for upsert in upserts {
            let mutable = upsert.functions.sorted().compactMap { oid -> String? in
                guard let procedure = procedures[oid] else { return "function \(oid) (not in pg_proc)" }
                return procedure.volatility == "i" ? nil : "\(procedure.name) (\(procedure.volatility == "s" ? "stable" : "volatile"))"
            } + upsert.mutableNodes.sorted()
            if !mutable.isEmpty { refused.insert("\(mutable.joined(separator: ", ")) in: \(upsert.statement)") }
        }
        #expect(refused.sorted() == [], "conflict actions Citus refuses")
    }
}
