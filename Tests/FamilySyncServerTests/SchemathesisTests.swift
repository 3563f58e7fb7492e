import FamilySyncCore
import FamilySyncProtocol
import FamilySyncServerTestSupport
import FamilySyncTestSupport
import Foundation
import Subprocess
import SystemPackage
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// docs/openapi.yaml against the server, from outside: schemathesis (PyPI, pinned and installed
/// into .build by scripts/lib/ensure-test-packages.sh) sends the cases it generates from the
/// document as a parent, a child and the operator, and fails on any 5xx and on any answer the
/// document does not describe (status, content type, headers, body). A short run per role, seeded:
/// the same cases every time, not a search. The role's own member, device and zone are given
/// to the operations that read them, so that their answers (a day with a game in it) are checked,
/// not only their 404s.
// No Swift Testing time limit: it would count the wait for a test server's slot;
// `withTestServer` bounds each run from its server's start, and `hardLimit` ends schemathesis first.
@Suite(.serialized) struct SchemathesisTests {
    /// Where ensure-test-packages.sh installs the pinned packages.
    static let python = TestPaths.packageRoot.appendingPathComponent(".build/test-python").path
    static let document = TestPaths.packageRoot.appendingPathComponent("docs/openapi.yaml").path
    /// A bound on a hang, not a measure: the parent's run took half a minute alone, up to 148 s in
    /// full runs beside a busy core, and over 200 s in the full Citus pass (27 s there alone).
    static let hardLimit: Duration = .seconds(600)

    @Test func asAParent() async throws {
        try await withTestServer { server in
            let family = try await Self.family(server)
            try await Self.run(server, role: "parent", credential: family.parent.credential, settings: family.settings, arguments: Self.deviceRun)
        }
    }

    @Test func asAChild() async throws {
        try await withTestServer { server in
            let family = try await Self.family(server)
            try await Self.run(server, role: "child", credential: family.child.credential, settings: family.settings, arguments: Self.deviceRun)
        }
    }

    @Test func asTheOperator() async throws {
        try await withTestServer { server in
            try await Self.run(server, role: "operator", credential: TestServer.operatorToken, settings: "", arguments: ["--include-operation-id", "trackingReport"])
        }
    }

    /// Every run's settings: the coverage phase's boundary values of what the document allows
    /// (its values past them would make six times as many cases; fuzzing sends such values too),
    /// and no identifiers taken from answers, so that a run's requests do not depend on what the
    /// server made before (and no run deletes the family's member or device by chance).
    static let common = """
        [phases.coverage]
        extra-data-sources = { responses = false }

        [phases.coverage.generation]
        mode = "positive"

        [phases.fuzzing]
        extra-data-sources = { responses = false }


        """

    /// A device's run: every operation but the two that end what the rest of the run sends (the
    /// family, the credential); each has tests of its own.
    static let deviceRun = ["--exclude-operation-id", "deleteFamily", "--exclude-operation-id", "rotateCredential"]

    /// A family with a confirmed child that used a game for ten minutes on the test clock's day
    /// (`gaming`: neither learning nor reward), and the settings that point the reads at them.
    static func family(_ server: TestServer) async throws -> (parent: TestDevice, child: TestDevice, settings: String) {
        let parent = try await server.createFamily()
        let (pairingID, child) = try await server.pair(by: parent)
        let memberID = try #require(try await server.send(.get, "/v1/devices/me", credential: child.credential).decode(DeviceBody.self).memberId)
        // The family at its 50 members (§8): one more is 413.
        var created = 0
        while created <= 50, try await server.send(.post, "/v1/members", credential: parent.credential, json: #"{"name":"Member \#(created)","role":"child"}"#).status == .created {
            created += 1
        }
        let full = try await server.send(.post, "/v1/members", credential: parent.credential, json: #"{"name":"One more","role":"child"}"#)
        #expect(full.status == .contentTooLarge, "\(String(buffer: full.body))")
        let end = server.clock.now().addingTimeInterval(-3600), start = end.addingTimeInterval(-600)
        let upload = try await server.send(.post, "/v1/usage", credential: child.credential, json: """
            {"timeZone":"UTC","records":[{"recordID":"\(UUID().lowercased)","logicalID":"game","displayName":"A game","category":"gaming",\
            "sessionStart":"\(Instant.format(start))","sessionEnd":"\(Instant.format(end))","totalSeconds":600}]}
            """)
        #expect(upload.status == .ok, "\(String(buffer: upload.body))")
        let day = DailySummaryCalculator.day(of: start, in: .gmt)
        let (member, device, zone) = (memberID.lowercased, child.deviceID.lowercased, Device.zoneName(forChild: child.deviceID))
        // One [[operations]] table an operation: schemathesis takes the first that matches.
        let settings = """
            [[operations]]
            include-operation-id = ["listMemberSummaries"]
            parameters = { "path.id" = "\(member)", "query.from" = "\(day)", "query.to" = "\(day)" }

            [[operations]]
            include-operation-id = ["budgetStatus", "listAlerts", "memberReport", "exportMember"]
            parameters = { "path.id" = "\(member)" }

            [[operations]]
            include-operation-id = ["listSummaries", "listUsage", "usageReport", "deviceHealth", "shieldState", "listCommands"]
            parameters = { "path.id" = "\(device)" }

            [[operations]]
            include-operation-id = ["getPairing"]
            parameters = { "path.id" = "\(pairingID.lowercased)" }

            [[operations]]
            include-operation-id = ["zoneChanges", "lookupRecords", "queryRecords"]
            parameters = { "path.zone" = "\(zone)" }

            # A poll held for its default 30 s would only slow the run.
            [[operations]]
            include-operation-id = ["poll", "heartbeatAndPoll"]
            parameters = { "query.timeout" = 0 }

            """
        return (parent, child, settings)
    }

    /// Runs schemathesis against `server` with `credential`, and fails with its report of the
    /// failures when it finds any.
    static func run(_ server: TestServer, role: String, credential: String, settings: String, arguments: [String]) async throws {
        guard FileManager.default.fileExists(atPath: python + "/schemathesis") else {
            throw TestFailure("schemathesis is not installed in \(python) (scripts/test installs it: scripts/lib/ensure-test-packages.sh)")
        }
        try await withTemporaryDirectory { directory in
            try (common + settings).write(toFile: directory + "/schemathesis.toml", atomically: true, encoding: .utf8)
            let started = ContinuousClock.now
            let (status, output) = try await Self.spawn(
                [
                    "-m", "schemathesis.cli", "--config-file", directory + "/schemathesis.toml", "--no-color", "run", document,
                    "--url", "http://127.0.0.1:\(server.port)", "--header", "Authorization: Bearer \(credential)",
                    "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance",
                    "--phases", "coverage,fuzzing", "--max-examples", "5", "--seed", "46", "--workers", "1",
                    "--generation-database", "none", "--request-timeout", "60", "--suppress-health-check", "all",
                ] + arguments,
                in: directory
            )
            // Its count of cases: "718 generated, 718 passed", or how many failed.
            let summary = output.split(separator: "\n").last { $0.contains(" generated") }.map { $0.trimmingCharacters(in: .whitespaces) } ?? "no count"
            print("schemathesis as \(role): \(summary) (\(ContinuousClock.now - started))")
            #expect(status == .exited(0), "schemathesis as \(role) (\(status)):\n\(Self.failures(in: output))")
        }
    }

    /// The report's failures, or its tail when it has none (it stopped on an error).
    static func failures(in output: String) -> String {
        if let start = output.range(of: "FAILURES") ?? output.range(of: "ERRORS") { return String(output[start.lowerBound...].prefix(20_000)) }
        return String(output.suffix(6_000))
    }

    /// Python with the pinned packages, its output in a file; killed once past `hardLimit`.
    static func spawn(_ arguments: [String], in directory: String) async throws -> (TerminationStatus, String) {
        let outputPath = directory + "/schemathesis.log"
        let output = try FileDescriptor.open(FilePath(outputPath), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let errors = try FileDescriptor.open(FilePath(outputPath + ".err"), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let (pids, pidContinuation) = AsyncStream.makeStream(of: pid_t.self)
        // Not Foundation's `Process`: its `waitUntilExit` blocks a thread of the shared pool.
        let exit = Task {
            try await Subprocess.run(
                .name("python3"), arguments: Arguments(arguments),
                environment: .inherit.updating(["PYTHONPATH": python, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "160"]),
                workingDirectory: FilePath(directory), input: .none,
                output: .fileDescriptor(output, closeAfterSpawningProcess: true), error: .fileDescriptor(errors, closeAfterSpawningProcess: true)
            ) { execution in
                pidContinuation.yield(execution.processIdentifier.value)
                pidContinuation.finish()
            }.terminationStatus
        }
        var iterator = pids.makeAsyncIterator()
        guard let pid = await iterator.next() else {
            _ = try await exit.value
            throw TestFailure("python3 did not start")
        }
        let watchdog = Task {
            try await Task.sleep(for: hardLimit)
            kill(pid, SIGKILL)
        }
        defer { watchdog.cancel() }
        let status = try await exit.value
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: outputPath + ".err", encoding: .utf8)) ?? ""
        if status == .signaled(SIGKILL) { throw TestFailure("schemathesis did not finish within \(hardLimit):\n\(text.suffix(4_000))\n\(stderr.suffix(2_000))") }
        return (status, text + (stderr.isEmpty ? "" : "\n" + stderr))
    }
}
