import AsyncHTTPClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import Prometheus
import ServiceLifecycle

/// The record-zone engine measured through HTTP against a baseline through PostgresNIO, both in this
/// process, on this machine, against the same database.
enum RecordBenchmark {
    static func run(_ arguments: [String]) async throws {
        let recordCount = arguments.count > 0 ? Int(arguments[0]) ?? 10_000 : 10_000
        let incrementalRequests = arguments.count > 1 ? Int(arguments[1]) ?? 2_000 : 2_000
        let server = try await InProcessServer.start()
        let (postgres, logger, port) = (server.postgres, server.logger, server.port)
        let api = API(base: "http://127.0.0.1:\(port)", http: HTTPClient(eventLoopGroupProvider: .singleton))

        do {
            let fixture = try await ZoneFixture.make(api)
            let (accepted, zone, familyID, family) = (fixture.child, fixture.zone, fixture.familyID, fixture.family)
            let fields = ZoneFixture.fields

            // 1. Modify throughput: 400-operation batches through HTTP.
            let batches = stride(from: 0, to: recordCount, by: 400).map { start in (start..<min(start + 400, recordCount)) }
            let clock = ContinuousClock()
            let modifyStart = clock.now
            try await fixture.writeApps(recordCount, through: api)
            let modifySeconds = seconds(clock.now - modifyStart)

            // Baseline: the same rows into a scratch zone by plain INSERT … SELECT unnest(…) through PostgresNIO.
            let baselineZone = "bench-baseline"
            try await postgres.query("INSERT INTO zones (family_id, zone_name, created_at) VALUES (\(familyID), \(baselineZone), now())", logger: logger)
            let encoder = JSONEncoder()
            let baselineStart = clock.now
            for batch in batches {
                let names = batch.map { "app-\($0)" }
                let bodies = try batch.map { String(decoding: try encoder.encode(fields($0)), as: UTF8.self) }
                try await postgres.withTransaction(logger: logger) { connection in
                    let sequence = try await connection.query("UPDATE families SET change_seq = change_seq + \(names.count) WHERE family_id = \(familyID) RETURNING change_seq", logger: logger)
                        .decode(Int64.self).first(where: { @Sendable _ in true })!
                    try await connection.query(
                        """
                        INSERT INTO records (family_id, zone_name, record_name, record_type, fields, change_tag, created_at, created_by, modified_at, modified_by, modified_role, client_modified_at, seq)
                        SELECT \(familyID), \(baselineZone), n, 'AppConfiguration', f::jsonb, 't', now(), \(family.device.id), now(), \(family.device.id), 'parent', now(), \(sequence) - \(names.count) + o
                        FROM unnest(\(names)::text[], \(bodies)::text[]) WITH ORDINALITY AS u(n, f, o)
                        """,
                        logger: logger
                    )
                }
            }
            let baselineSeconds = seconds(clock.now - baselineStart)

            // 2. Full sync: every record of the zone, 1000 a page, as a new child device would:
            // plain JSON, then gzipped (asked for and inflated here, as the SDK does).
            let plainSync = try await fixture.fullSync(api, gzip: false, format: .full, expecting: recordCount)
            let gzipSync = try await fixture.fullSync(api, gzip: true, format: .full, expecting: recordCount)
            let (syncSeconds, token) = (plainSync.seconds, plainSync.token)

            // 3. Incremental "nothing new": the same token again and again, through HTTP …
            var latencies: [Double] = []
            let incrementalStart = clock.now
            for _ in 0..<incrementalRequests {
                let start = clock.now
                let page = try await api.get("/v1/zones/\(zone)/changes?since=\(token!)", credential: accepted.credential, as: ZoneChangesResponse.self)
                latencies.append(seconds(clock.now - start))
                guard page.records.isEmpty else { throw BenchFailure("incremental fetch returned records") }
            }
            let incrementalSeconds = seconds(clock.now - incrementalStart)
            // … against a plain indexed SELECT of the zone's sequence through PostgresNIO.
            let highest = Int64(try await postgres.query("SELECT change_seq FROM families WHERE family_id = \(familyID)", logger: logger).decode(Int64.self).first(where: { @Sendable _ in true })!)
            var baselineLatencies: [Double] = []
            let selectStart = clock.now
            for _ in 0..<incrementalRequests {
                let start = clock.now
                let rows = try await postgres.query("SELECT seq FROM records WHERE family_id = \(familyID) AND zone_name = \(zone) AND seq > \(highest) ORDER BY seq LIMIT 201", logger: logger)
                for try await _ in rows {}
                baselineLatencies.append(seconds(clock.now - start))
            }
            let selectSeconds = seconds(clock.now - selectStart)

            latencies.sort()
            baselineLatencies.sort()
            let serverRate = Double(incrementalRequests) / incrementalSeconds
            let selectRate = Double(incrementalRequests) / selectSeconds
            func ms(_ value: Double) -> String { String(format: "%.2f ms", value * 1000) }
            print("FamilySync record-zone benchmark (\(recordCount) records, \(incrementalRequests) incremental requests, one client, sequential)")
            print(String(format: "  modify, 400-operation batches:  %.0f records/s (%.2f s)   baseline INSERT … unnest: %.0f records/s   ratio %.2f",
                         Double(recordCount) / modifySeconds, modifySeconds, Double(recordCount) / baselineSeconds, baselineSeconds / modifySeconds))
            print(String(format: "  full sync of the zone:          %.2f s (%.0f records/s, pages of 1000), %.2f MB on the wire; the client's decoding %.2f s of it",
                         syncSeconds, Double(recordCount) / syncSeconds, Double(plainSync.wireBytes) / 1e6, plainSync.decodeSeconds))
            print(String(format: "  full sync, gzip accepted:       %.2f s, %.2f MB on the wire; the client's inflating and decoding %.2f s of it",
                         gzipSync.seconds, Double(gzipSync.wireBytes) / 1e6, gzipSync.decodeSeconds))
            print(String(format: "  incremental, nothing new:       %.0f req/s, p50 %@, p99 %@", serverRate, ms(percentile(latencies, 0.5)), ms(percentile(latencies, 0.99))))
            print(String(format: "  baseline indexed SELECT:        %.0f q/s, p50 %@, p99 %@", selectRate, ms(percentile(baselineLatencies, 0.5)), ms(percentile(baselineLatencies, 0.99))))
            print(String(format: "  ratio (HTTP fetch / plain SELECT throughput): %.2f", serverRate / selectRate))
        } catch {
            print("benchmark failed: \(error)")
        }
        try await api.http.shutdown()
        try await server.stop()

    }
}

/// A family with one paired child, and the child's zone, through HTTP: what the record and
/// full-sync harnesses write into.
struct ZoneFixture {
    let family: CreateFamilyResponse
    let child: AcceptPairingResponse
    var parent: String { family.credential }
    var familyID: UUID { family.family.id }
    var zone: String { "child-\(child.device.id.lowercased)" }

    static func make(_ api: API) async throws -> ZoneFixture {
        let family = try await api.send(.POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Bench parent", platform: .macos, timeZone: "UTC")), as: CreateFamilyResponse.self)
        let invitation = try await api.send(.POST, "/v1/pairings", credential: family.credential, body: CreatePairingRequest(role: .child, childName: "Bench"), as: CreatePairingResponse.self)
        let accepted = try await api.send(.POST, "/v1/pairings/accept", body: AcceptPairingRequest(qrPayload: invitation.qrPayload, device: .init(name: "Bench child", platform: .ipados, timeZone: "UTC")), as: AcceptPairingResponse.self)
        _ = try await api.send(.POST, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: family.credential, body: Empty(), as: PairingBody.self)
        return ZoneFixture(family: family, child: accepted)
    }

    /// The fields of the `index`th app: an `AppConfiguration` as a parent's app writes it.
    static func fields(_ index: Int) -> [String: JSONValue] {
        ["logicalID": .string("app-\(index)"), "displayName": .string("App number \(index)"), "category": .string(index % 2 == 0 ? "learning" : "reward"),
         "pointsPerMinute": .number(Double(index % 100)), "isEnabled": .bool(true), "blockingEnabled": .bool(false), "bundleIdentifier": .string("com.example.app\(index)")]
    }

    /// What a full sync cost: its time, the bytes of its pages on the wire, the client's share
    /// (inflating and decoding), and the token of its last page (FamilySync's).
    struct FullSync {
        var seconds: Double
        var wireBytes: Int
        var decodeSeconds: Double
        var token: String?
    }

    /// Every page of the zone with no token, 1,000 records a page, as the child's new device
    /// fetches it (asking for gzip or not), inflated and decoded as the SDK does.
    func fullSync(_ api: API, gzip: Bool, format: ChangesFormat, expecting count: Int) async throws -> FullSync {
        let start = ContinuousClock.now
        var token: String?
        var (synced, wireBytes, decodeSeconds) = (0, 0, 0.0)
        while true {
            let (page, bytes, decoding) = try await api.measuredGet(
                "/v1/zones/\(zone)/changes?limit=1000&format=\(format.rawValue)" + (token.map { "&since=\($0)" } ?? ""), credential: child.credential, gzip: gzip, as: ZoneChangesResponse.self
            )
            synced += page.records.count
            wireBytes += bytes
            decodeSeconds += decoding
            token = page.changeToken
            if !page.moreComing { break }
        }
        guard synced == count, let token else { throw BenchFailure("the full sync returned \(synced) of \(count)") }
        return FullSync(seconds: seconds(.now - start), wireBytes: wireBytes, decodeSeconds: decodeSeconds, token: token)
    }

    /// `count` apps written by the parent in 400-operation batches.
    func writeApps(_ count: Int, through api: API) async throws {
        for start in stride(from: 0, to: count, by: 400) {
            let operations = (start..<min(start + 400, count)).map {
                RecordOperation(operationType: .create, record: RecordInput(recordName: "app-\($0)", recordType: "AppConfiguration", fields: Self.fields($0)))
            }
            _ = try await api.send(.POST, "/v1/zones/\(zone)/records/modify", credential: parent, body: ModifyRecordsRequest(operations: operations), as: ModifyRecordsResponse.self)
        }
    }
}
