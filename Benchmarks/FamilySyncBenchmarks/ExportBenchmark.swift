import AsyncHTTPClient
import FamilySyncClient
import FamilySyncClientNIO
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// `familysync-bench export [usage records]` (PROTOCOL §15.2): a family whose child has N usage
/// records (1,000,000 by default, written straight into the table, as a year and more of a busy
/// child's sessions), exported through `GET /v1/families/me/export` by the SDK to a file, with the
/// server in a process of its own. Reports the export's time and size, the server's resident
/// memory before, at its peak during the export (sampled every 20 ms, and the kernel's high-water
/// mark) and the growth; and, as the same run's baseline, `psql`'s `COPY` of the same rows as the
/// same JSON, straight from the database to a file.
enum ExportBenchmark {
    static func run(_ arguments: [String]) async throws {
        let count = arguments.first.flatMap { Int($0) } ?? 1_000_000
        let bench = try await SeparateServerBench.start(connections: 4)
        let (process, port) = try BenchServer.launch(databaseURL: bench.url)
        do {
            try await measure(count: count, bench: bench, server: process, port: port)
        } catch {
            process.terminate()
            process.waitUntilExit()
            try? await bench.stop()
            throw error
        }
        process.terminate()
        process.waitUntilExit()
        try await bench.stop()
    }

    static func measure(count: Int, bench: SeparateServerBench, server: Process, port: Int) async throws {
        let anonymous = FamilySyncClient(serverURL: URL(string: "http://127.0.0.1:\(port)")!, httpClient: bench.client)
        let family = try await anonymous.createFamily(.init(name: "Export parent", platform: .ios, timeZone: "UTC"))
        let parent = anonymous.authenticated(as: family.credential)
        let invitation = try await parent.createPairing(.init(role: .child, childName: "Busy"))
        let accepted = try await anonymous.acceptPairing(qrPayload: invitation.qrPayload, device: .init(name: "Busy iPad", platform: .ipados, timeZone: "UTC"))
        _ = try await parent.confirmPairing(invitation.pairing.id)
        let zone = Device.zoneName(forChild: accepted.device.id)

        var logger = Logger(label: "familysync.bench.export")
        logger.logLevel = .warning
        let filled = ContinuousClock.now
        try await fill(count: count, family: family.family.id, zone: zone, child: accepted.device.id, url: bench.url, logger: logger)
        print("FamilySync export benchmark: \(count) usage records written in \(String(format: "%.1f", seconds(ContinuousClock.now - filled))) s")

        // Warm: a small family's export, so that the first-use costs are not the large one's.
        let small = FileManager.default.temporaryDirectory.appendingPathComponent("familysync-export-small-\(getpid()).tar")
        let other = try await anonymous.createFamily(.init(name: "Small", platform: .ios, timeZone: "UTC"))
        _ = try await anonymous.authenticated(as: other.credential).exportFamily(to: small)
        try? FileManager.default.removeItem(at: small)

        let pid = server.processIdentifier
        let before = try ProcessSample(pid: pid)
        try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
        let peak = Atomic<Int>(before.residentBytes)
        let sampling = Task {
            while !Task.isCancelled {
                if let sample = try? ProcessSample(pid: pid) { _ = peak.max(sample.residentBytes) }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("familysync-export-\(getpid()).tar")
        let started = ContinuousClock.now
        let counts = try await parent.exportFamily(to: file)
        let elapsed = seconds(ContinuousClock.now - started)
        sampling.cancel()
        _ = await sampling.value
        let after = try ProcessSample(pid: pid)
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        try? FileManager.default.removeItem(at: file)
        let highWater = (try? highWaterMark(pid: pid)) ?? 0
        guard counts.lines["records/UsageRecord"] == count else { throw BenchFailure("the export held \(counts.lines) usage records, not \(count)") }

        let copy = try copyBaseline(family: family.family.id, url: bench.url)
        let mib = { (bytes: Int) in Double(bytes) / 1_048_576 }
        print(String(format: "  export: %.1f s, %.1f MiB (%d lines), %.0f records/s", elapsed, mib(size), counts.lines.values.reduce(0, +), Double(count) / elapsed))
        print(String(format: "  baseline, psql COPY of the same rows as JSON: %.1f s, %.1f MiB → the export takes %.2f× its time", copy.seconds, mib(copy.bytes), elapsed / copy.seconds))
        print(String(format: "  server RSS: %.1f MiB before, %.1f MiB at the sampled peak (+%.1f MiB), high-water mark %.1f MiB (+%.1f MiB), %.1f MiB after",
                     mib(before.residentBytes), mib(peak.load(ordering: .relaxed)), mib(peak.load(ordering: .relaxed) - before.residentBytes),
                     mib(highWater), mib(highWater - before.residentBytes), mib(after.residentBytes)))
        print(String(format: "  server CPU: %.1f s", after.cpuSeconds - before.cpuSeconds))
    }

    /// N `UsageRecord`s in the child's zone, as uploads would leave them, numbered after the
    /// family's sequence (which moves past them, as the change log's would).
    static func fill(count: Int, family: UUID, zone: String, child: UUID, url: DatabaseURL, logger: Logger) async throws {
        let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        let batch = 100_000
        var written = 0
        while written < count {
            let size = min(batch, count - written)
            _ = try await connection.query(
                """
                WITH seq AS (UPDATE families SET change_seq = change_seq + \(size) WHERE family_id = \(family) RETURNING change_seq)
                INSERT INTO records (family_id, zone_name, record_name, record_type, fields, change_tag, deleted, created_at, created_by,
                                     modified_at, modified_by, modified_role, client_modified_at, seq)
                SELECT \(family), \(zone), 'usage-' || gen_random_uuid(), 'UsageRecord',
                       jsonb_build_object('recordID', gen_random_uuid(), 'logicalID', 'app-' || (i % 40), 'displayName', 'App ' || (i % 40),
                           'category', 'learning', 'sessionStart', to_char((now() - (i || ' minutes')::interval) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                           'sessionEnd', to_char((now() - (i || ' minutes')::interval + interval '5 minutes') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                           'totalSeconds', 300, 'earnedPoints', 1, 'deviceID', \(child.lowercased)),
                       to_char(i, 'FM999999999'), false, now(), \(child), now(), \(child), 'child', now(), (SELECT change_seq FROM seq) - \(size) + i
                FROM generate_series(\(written + 1), \(written + size)) AS i
                """,
                logger: logger
            )
            written += size
        }
        _ = try await connection.query("UPDATE zones SET changed_seq = (SELECT change_seq FROM families WHERE family_id = \(family)) WHERE family_id = \(family) AND zone_name = \(zone)", logger: logger)
        _ = try await connection.query("VACUUM ANALYZE records", logger: logger)
    }

    /// `psql -c "COPY (…) TO STDOUT"` of the family's records as the export writes them, into a file.
    static func copyBaseline(family: UUID, url: DatabaseURL) throws -> (seconds: Double, bytes: Int) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("familysync-copy-\(getpid()).jsonl")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try PostgresBinaries.find().directory + "/psql")
        let instant = { (column: String) in "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')" }
        process.arguments = [
            url.connectionString, "-c",
            """
            COPY (SELECT json_build_object('zoneName', zone_name, 'recordName', record_name, 'recordType', record_type, 'fields', fields,
                'createdAt', \(instant("created_at")), 'createdBy', created_by, 'modifiedAt', \(instant("modified_at")), 'modifiedBy', modified_by,
                'modifiedRole', modified_role)::text
            FROM records WHERE family_id = '\(family.lowercased)' AND NOT deleted ORDER BY zone_name, record_name) TO STDOUT
            """,
        ]
        process.standardOutput = try FileHandle(forWritingTo: output)
        let started = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchFailure("psql's COPY failed") }
        let elapsed = seconds(ContinuousClock.now - started)
        return (elapsed, (try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0)
    }

    /// VmHWM: the most the process held since the benchmark reset it (`clear_refs`).
    static func highWaterMark(pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw BenchFailure("no VmHWM for \(pid)") }
        return kilobytes * 1024
    }
}

extension Atomic where Value == Int {
    /// Raises the value to `candidate` if it is larger.
    func max(_ candidate: Int) -> Int {
        var current = load(ordering: .relaxed)
        while candidate > current {
            let (exchanged, original) = compareExchange(expected: current, desired: candidate, ordering: .relaxed)
            if exchanged { return candidate }
            current = original
        }
        return current
    }
}
