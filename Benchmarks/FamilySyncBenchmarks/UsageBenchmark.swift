import AsyncHTTPClient
import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import FamilySyncServer
import Foundation
import Logging
import NIOCore
import PostgresNIO
import Prometheus
import ServiceLifecycle

/// Usage ingest (PROTOCOL §7.2–§7.3): 1000-record uploads through HTTP, with dedupe and summary
/// upkeep, against the same rows inserted by a plain `INSERT … SELECT unnest(…) ON CONFLICT DO
/// NOTHING` through PostgresNIO, both in this process against the same database; then a replay of
/// the same uploads (all duplicates). Then daily totals (§9.2): 20 apps' running totals reported
/// every "15 minutes", from a device of a member with budgets and of one without, against the same
/// record upserted by a plain `INSERT … ON CONFLICT DO UPDATE`.
enum UsageBenchmark {
    static func run(_ arguments: [String]) async throws {
        let batchCount = arguments.count > 0 ? Int(arguments[0]) ?? 20 : 20
        let batchSize = arguments.count > 1 ? min(1000, Int(arguments[1]) ?? 1000) : 1000
        let server = try await InProcessServer.start(limits: Limits(maxBodyBytes: 16 << 20))
        let (postgres, logger, port) = (server.postgres, server.logger, server.port)
        let api = API(base: "http://127.0.0.1:\(port)", http: HTTPClient(eventLoopGroupProvider: .singleton))

        do {
            let family = try await api.send(.POST, "/v1/families", body: CreateFamilyRequest(device: .init(name: "Bench parent", platform: .macos, timeZone: "UTC")), as: CreateFamilyResponse.self)
            let invitation = try await api.send(.POST, "/v1/pairings", credential: family.credential, body: CreatePairingRequest(role: .child, childName: "Bench"), as: CreatePairingResponse.self)
            let child = try await api.send(.POST, "/v1/pairings/accept", body: AcceptPairingRequest(qrPayload: invitation.qrPayload, device: .init(name: "Bench child", platform: .ipados, timeZone: "America/Chicago")), as: AcceptPairingResponse.self)
            _ = try await api.send(.POST, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: family.credential, body: Empty(), as: PairingBody.self)

            // One day of sessions a batch, going back from yesterday: 20 apps, 1–10 minutes each,
            // some of an app's sessions overlapping (as re-reports do).
            var random = SystemRandomNumberGenerator()
            let today = Calendar(identifier: .gregorian).startOfDay(for: Date())
            let batches: [[UsageRecordBody]] = (0..<batchCount).map { index in
                let day = today.addingTimeInterval(-TimeInterval(index + 1) * 86_400)
                return (0..<batchSize).map { _ in
                    let start = day.addingTimeInterval(TimeInterval(Int.random(in: 0..<86_000, using: &random)))
                    let minutes = Int.random(in: 1...10, using: &random)
                    let app = Int.random(in: 0..<20, using: &random)
                    return UsageRecordBody(
                        recordID: UUID().lowercased, logicalID: "app-\(app)", displayName: "App \(app)", category: app % 2 == 0 ? "learning" : "reward",
                        sessionStart: start, sessionEnd: start.addingTimeInterval(TimeInterval(minutes * 60)),
                        totalSeconds: minutes * 60 - Int.random(in: 0...30, using: &random), earnedPoints: minutes
                    )
                }
            }
            // The bodies are encoded before the clock starts: the client's work is not the server's.
            let bodies = try batches.map { ByteBuffer(data: try WireCoding.makeEncoder().encode(UsageUploadRequest(records: $0))) }
            let clock = ContinuousClock()
            func upload() async throws -> (seconds: Double, accepted: Int, duplicates: Int) {
                let start = clock.now
                var accepted = 0, duplicates = 0
                for body in bodies {
                    let answer = try await post(body, to: "/v1/usage", credential: child.credential, api: api, as: UsageUploadResponse.self)
                    accepted += answer.accepted
                    duplicates += answer.duplicates
                }
                return (seconds(clock.now - start), accepted, duplicates)
            }
            let ingest = try await upload()
            let replay = try await upload()
            let total = batchCount * batchSize
            guard ingest.accepted == total, replay.duplicates == total else {
                throw BenchFailure("ingest accepted \(ingest.accepted), replay saw \(replay.duplicates) duplicates of \(total)")
            }

            // The same ingest for a second child whose member has two budgets (§9.3): every upload
            // also evaluates them against the member's day and makes the alerts they call for.
            let second = try await api.send(.POST, "/v1/pairings", credential: family.credential, body: CreatePairingRequest(role: .child, childName: "Budgeted"), as: CreatePairingResponse.self)
            let budgeted = try await api.send(.POST, "/v1/pairings/accept", body: AcceptPairingRequest(qrPayload: second.qrPayload, device: .init(name: "Budgeted child", platform: .ipados, timeZone: "America/Chicago")), as: AcceptPairingResponse.self)
            _ = try await api.send(.POST, "/v1/pairings/\(second.pairing.id.lowercased)/confirm", credential: family.credential, body: Empty(), as: PairingBody.self)
            let member = try await api.get("/v1/devices/me", credential: budgeted.credential, as: DeviceBody.self).memberId!
            let budgetWrites = ModifyRecordsRequest(operations: [
                RecordOperation(operationType: .forceReplace, record: RecordInput(recordName: "budget-learning", recordType: "Budget", fields: [
                    "budgetID": .string("learning"), "category": .string("learning"), "period": .string("daily"), "dailyMinutes": .number(120),
                    "alertAtPercent": .array([.number(50), .number(80), .number(100)]), "enabled": .bool(true),
                ])),
                RecordOperation(operationType: .forceReplace, record: RecordInput(recordName: "budget-all", recordType: "Budget", fields: [
                    "budgetID": .string("all"), "category": .string("*"), "period": .string("monthly"), "monthlyHours": .number(30),
                    "alertAtPercent": .array([.number(80), .number(100)]), "enabled": .bool(true),
                ])),
            ])
            _ = try await api.send(.POST, "/v1/zones/\(Member.zoneName(of: member))/records/modify", credential: family.credential, body: budgetWrites, as: ModifyRecordsResponse.self)
            let budgetedBodies = try batches.map { batch in
                ByteBuffer(data: try WireCoding.makeEncoder().encode(UsageUploadRequest(records: batch.map { record in
                    var copy = record
                    copy.recordID = UUID().lowercased
                    return copy
                })))
            }
            var alertCount = 0
            let budgetedStart = clock.now
            for body in budgetedBodies {
                alertCount += try await post(body, to: "/v1/usage", credential: budgeted.credential, api: api, as: UsageUploadResponse.self).alerts.count
            }
            let budgetedSeconds = seconds(clock.now - budgetedStart)

            // Daily totals: 16 reports a day (four hours of a report every 15 minutes), 20 apps
            // each, growing; each report rewrites the day's totals record, derives its summary and
            // checks the member's budgets. From a second device of the budgeted member, then from
            // a device of a member without budgets. The days are before the sessions' days, so that
            // the reports are what crosses the budgets' percents.
            let chicago = TimeZone(identifier: "America/Chicago")!
            let reports: [UsageTotalsRequest] = (0..<batchCount).flatMap { index in
                let date = DailySummaryCalculator.day(of: Date().addingTimeInterval(-TimeInterval(batchCount + index + 1) * 86_400), in: chicago)
                return (1...16).map { step in
                    UsageTotalsRequest(timeZone: chicago.identifier, date: date, apps: (0..<20).map { app in
                        UsageTotalBody(
                            logicalID: "app-\(app)", displayName: "App \(app)", category: app % 2 == 0 ? "learning" : "reward",
                            totalSeconds: step * (30 + app * 5), pickups: step, earnedPoints: step
                        )
                    })
                }
            }
            let reportBodies = try reports.map { ByteBuffer(data: try WireCoding.makeEncoder().encode($0)) }
            func reportTotals(_ pairing: CreatePairingRequest) async throws -> (seconds: Double, alerts: Int) {
                let invitation = try await api.send(.POST, "/v1/pairings", credential: family.credential, body: pairing, as: CreatePairingResponse.self)
                let reporter = try await api.send(.POST, "/v1/pairings/accept", body: AcceptPairingRequest(qrPayload: invitation.qrPayload, device: .init(name: "Totals device", platform: .macos, timeZone: chicago.identifier)), as: AcceptPairingResponse.self)
                _ = try await api.send(.POST, "/v1/pairings/\(invitation.pairing.id.lowercased)/confirm", credential: family.credential, body: Empty(), as: PairingBody.self)
                var alerts = 0
                let start = clock.now
                for body in reportBodies {
                    alerts += try await post(body, to: "/v1/usage/totals", credential: reporter.credential, api: api, as: UsageTotalsResponse.self).alerts.count
                }
                return (seconds(clock.now - start), alerts)
            }
            let budgetedTotals = try await reportTotals(CreatePairingRequest(role: .child, memberId: member))
            let plainTotals = try await reportTotals(CreatePairingRequest(role: .child, childName: "Without budgets"))

            // Baseline: the same rows into a scratch zone, one plain statement a batch.
            let familyID = family.family.id
            let zone = "bench-baseline"
            try await postgres.query("INSERT INTO zones (family_id, zone_name, created_at) VALUES (\(familyID), \(zone), now())", logger: logger)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let baselineStart = clock.now
            for batch in batches {
                let names = batch.map { "usage-\($0.recordID)" }
                let bodies = try batch.map { record in
                    String(decoding: try encoder.encode(UsageSession(
                        recordID: UUID(uuidString: record.recordID)!, logicalID: record.logicalID, displayName: record.displayName,
                        category: UsageSession.Category(rawValue: record.category ?? "other")!, sessionStart: record.sessionStart, sessionEnd: record.sessionEnd,
                        totalSeconds: record.totalSeconds, earnedPoints: record.earnedPoints ?? 0
                    ).fields), as: UTF8.self)
                }
                try await postgres.query(
                    """
                    INSERT INTO records (family_id, zone_name, record_name, record_type, fields, change_tag, created_at, created_by, modified_at, modified_by, modified_role, client_modified_at, seq)
                    SELECT \(familyID), \(zone), n, 'UsageRecord', f::jsonb, 't', now(), \(child.device.id), now(), \(child.device.id), 'child', now(), o
                    FROM unnest(\(names)::text[], \(bodies)::text[]) WITH ORDINALITY AS u(n, f, o)
                    ON CONFLICT DO NOTHING
                    """,
                    logger: logger
                )
            }
            let baselineSeconds = seconds(clock.now - baselineStart)

            // Baseline for totals: the same day records upserted, one plain statement a report.
            let totalsBodies = try reports.map { report in
                String(decoding: try encoder.encode(DailyTotals(date: report.date, apps: report.apps.map { app in
                    DailyTotals.App(
                        logicalID: app.logicalID, displayName: app.displayName, category: CategoryID(rawValue: app.category ?? "other")!,
                        totalSeconds: app.totalSeconds, earnedPoints: app.earnedPoints ?? 0, pickups: app.pickups
                    )
                }).fields), as: UTF8.self)
            }
            let upsertStart = clock.now
            for (report, body) in zip(reports, totalsBodies) {
                try await postgres.query(
                    """
                    INSERT INTO records (family_id, zone_name, record_name, record_type, fields, change_tag, created_at, created_by, modified_at, modified_by, modified_role, client_modified_at, seq)
                    VALUES (\(familyID), \(zone), \(DailyTotals.recordName(report.date)), 'DailyTotals', \(body)::jsonb, 't', now(), \(child.device.id), now(), \(child.device.id), 'child', now(), 1)
                    ON CONFLICT (family_id, zone_name, record_name) DO UPDATE SET fields = EXCLUDED.fields, modified_at = EXCLUDED.modified_at
                    """,
                    logger: logger
                )
            }
            let upsertSeconds = seconds(clock.now - upsertStart)

            let ingestRate = Double(total) / ingest.seconds, replayRate = Double(total) / replay.seconds, baselineRate = Double(total) / baselineSeconds
            print("FamilySync usage ingest benchmark (\(batchCount) uploads of \(batchSize) records, one day each, one client, sequential)")
            print(String(format: "  ingest with dedupe and summaries: %.0f records/s (%.2f s)", ingestRate, ingest.seconds))
            print(String(format: "  replay (all duplicates):          %.0f records/s (%.2f s)", replayRate, replay.seconds))
            let budgetedRate = Double(total) / budgetedSeconds
            print(String(format: "  ingest, member with two budgets:  %.0f records/s (%.2f s), %d alerts made", budgetedRate, budgetedSeconds, alertCount))
            print(String(format: "  baseline INSERT … unnest … ON CONFLICT DO NOTHING: %.0f records/s (%.2f s)", baselineRate, baselineSeconds))
            print(String(format: "  ratio ingest / baseline: %.2f   replay / baseline: %.2f   with budgets / baseline: %.2f   with budgets / without: %.2f",
                         ingestRate / baselineRate, replayRate / baselineRate, budgetedRate / baselineRate, budgetedRate / ingestRate))
            let totalsRate = Double(reports.count) / budgetedTotals.seconds, plainTotalsRate = Double(reports.count) / plainTotals.seconds
            let upsertRate = Double(reports.count) / upsertSeconds
            print(String(format: "  daily totals (20 apps a report), member without budgets: %.0f reports/s (%.2f s)", plainTotalsRate, plainTotals.seconds))
            print(String(format: "  daily totals, member with the two budgets:           %.0f reports/s (%.2f s), %d alerts made", totalsRate, budgetedTotals.seconds, budgetedTotals.alerts))
            print(String(format: "  baseline INSERT … ON CONFLICT DO UPDATE of the day's record: %.0f reports/s (%.2f s)", upsertRate, upsertSeconds))
            print(String(format: "  ratio totals / baseline: %.2f   with budgets / baseline: %.2f   with budgets / without: %.2f",
                         plainTotalsRate / upsertRate, totalsRate / upsertRate, totalsRate / plainTotalsRate))
        } catch {
            print("benchmark failed: \(error)")
        }
        try await api.http.shutdown()
        try await server.stop()
    }

    /// A body encoded beforehand, posted; the answer decoded (anything but 200 fails the run).
    static func post<Answer: Decodable>(_ body: ByteBuffer, to path: String, credential: String, api: API, as type: Answer.Type) async throws -> Answer {
        var request = HTTPClientRequest(url: api.base + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(credential)")
        request.body = .bytes(body)
        let response = try await api.http.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        guard response.status == .ok else { throw BenchFailure("\(path): \(response.status) \(String(buffer: bytes))") }
        return try WireCoding.makeDecoder().decode(Answer.self, from: Data(bytes.readableBytesView))
    }
}
