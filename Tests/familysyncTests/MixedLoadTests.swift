import FamilySyncClient
import FamilySyncCore
import FamilySyncProtocol
import FamilySyncTestSupport
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ReliabilitySuites {
    /// Many devices at once against one server process for twenty seconds: children uploading
    /// (an app and its extension at once on some), re-sending, polling; parents configuring, reading
    /// and polling. Not one 5xx, not one failure, and every summary equal to its recomputation.
    @Suite(.timeLimit(.minutes(3))) struct MixedLoadTests {
        static let families = 8
        static let childrenPerFamily = 4
        static let duration: Duration = .seconds(20)
        /// Each app's name and category stay the same, so "the latest session names the app" needs
        /// no tie-break in the comparison.
        static let apps: [(String, String, String)] = [("app-0", "Khan Academy", "learning"), ("app-1", "Brawl Stars", "reward"), ("app-2", "Duolingo", "learning")]

        /// Every failure of every client, by what was asked and what came back.
        final class Failures: Sendable {
            let list = Mutex<[String]>([])
            let requests = Atomic<Int>(0)

            func run<Result>(_ what: String, _ call: () async throws -> Result) async -> Result? {
                requests.add(1, ordering: .relaxed)
                do {
                    return try await call()
                } catch {
                    list.withLock { $0.append("\(what): \(error)") }
                    return nil
                }
            }
        }

        static func randomSessions(now: Date) -> [UsageRecordBody] {
            (0..<Int.random(in: 1...20)).map { _ in
                let app = apps.randomElement()!
                let length = Double.random(in: 60...3600).rounded()
                let start = now.addingTimeInterval(-Double.random(in: length...(30 * 3600)).rounded())
                return UsageRecordBody(
                    recordID: UUID().uuidString, logicalID: app.0, displayName: app.1, category: app.2,
                    sessionStart: start, sessionEnd: start.addingTimeInterval(length), totalSeconds: Int.random(in: 0...Int(length)),
                    earnedPoints: Int.random(in: 0...100)
                )
            }
        }

        /// One uploader of a child until `end`: new sessions, and now and then a batch sent again.
        /// Returns what was acknowledged.
        static func upload(_ child: PairedFamily.Child, until end: ContinuousClock.Instant, failures: Failures) async -> [UsageRecordBody] {
            var acknowledged: [UsageRecordBody] = []
            var sent: [[UsageRecordBody]] = []
            var token: String?
            var iteration = 0
            while ContinuousClock.now < end {
                iteration += 1
                let records = sent.isEmpty || Int.random(in: 0..<4) > 0 ? randomSessions(now: Date()) : sent.randomElement()!
                if await failures.run("upload", { try await child.client.uploadUsage(UsageUploadRequest(timeZone: "UTC", records: records)) }) != nil {
                    acknowledged += records
                    sent.append(records)
                }
                if iteration % 3 == 0, let answer = await failures.run("child poll", { try await child.client.poll(since: token, timeout: 1) }) {
                    token = answer.changeToken
                }
            }
            return acknowledged
        }

        /// A parent until `end`: configuration writes into its children's zones, summary reads, polls.
        static func parent(_ family: PairedFamily, until end: ContinuousClock.Instant, failures: Failures) async {
            var token: String?
            var iteration = 0
            let today = DailySummaryCalculator.day(of: Date(), in: .gmt)
            while ContinuousClock.now < end {
                iteration += 1
                let child = family.children.randomElement()!
                let app = apps.randomElement()!
                let fields: [String: JSONValue] = [
                    "logicalID": .string(app.0), "displayName": .string(app.1), "category": .string(app.2),
                    "isEnabled": .bool(true), "blockingEnabled": .bool(iteration % 2 == 0), "pointsPerMinute": .number(Double(iteration % 10)),
                ]
                let operation = RecordOperation(operationType: .forceReplace, record: .init(recordName: app.0, recordType: "AppConfiguration", fields: fields))
                _ = await failures.run("modify") { try await family.parent.modify(child.zone, ModifyRecordsRequest(operations: [operation])) }
                if iteration % 4 == 0 {
                    _ = await failures.run("summaries") { try await family.parent.summaries(of: child.id, from: today, to: today) }
                }
                if let answer = await failures.run("parent poll", { try await family.parent.poll(since: token, timeout: 1) }) {
                    token = answer.changeToken
                }
            }
        }

        @Test func fortyEightClientsForTwentySecondsWithoutOneFailure() async throws {
            try await withTemporaryDirectory { directory in
                let database = try await TestPostgres.shared.makeDatabase(isolation: .database)
                let port = try freePort()
                let server = try await ServerProcess.start(
                    ["serve", "--port", "\(port)", "--unauthenticated-rate-limit", "1000", "--device-rate-limit", "1000000"], port: port,
                    environment: ["DATABASE_URL": database.connectionString], workingDirectory: directory
                )
                defer { server.signal(SIGKILL) }
                try await server.waitUntilReady()
                var families: [PairedFamily] = []
                for index in 0..<Self.families {
                    families.append(try await PairedFamily.create(on: server.client, name: "Family \(index)", children: Self.childrenPerFamily))
                }
                let failures = Failures()
                let end = ContinuousClock.now + Self.duration
                let acknowledged = await withTaskGroup(of: (UUID, [UsageRecordBody]).self) { group in
                    for family in families {
                        group.addTask { await Self.parent(family, until: end, failures: failures); return (family.children[0].id, []) }
                        // The first child twice: its app and its monitor extension upload at once.
                        for child in family.children + [family.children[0]] {
                            group.addTask { (child.id, await Self.upload(child, until: end, failures: failures)) }
                        }
                    }
                    return await group.reduce(into: [UUID: [UsageRecordBody]]()) { $0[$1.0, default: []] += $1.1 }
                }
                let failed = failures.list.withLock { $0 }
                #expect(failed.isEmpty, "\(failed.count) of \(failures.requests.load(ordering: .relaxed)) requests failed, first: \(failed.prefix(5))")

                // Each child's stored days against the calculator over everything acknowledged.
                let now = Date()
                for family in families {
                    for child in family.children {
                        // Instants as the wire carried them, to the millisecond (PROTOCOL §1): the
                        // calculator's rounding can tell a nanosecond from the millisecond it became.
                        func sent(_ instant: Date) -> Date { Instant.parse(Instant.format(instant))! }
                        var unique: [String: UsageSession] = [:]
                        for body in acknowledged[child.id] ?? [] {
                            unique[body.recordID] = UsageSession(
                                recordID: UUID(uuidString: body.recordID)!, logicalID: body.logicalID, displayName: body.displayName,
                                category: UsageSession.Category(rawValue: body.category ?? "other")!, sessionStart: sent(body.sessionStart), sessionEnd: sent(body.sessionEnd),
                                totalSeconds: body.totalSeconds, earnedPoints: body.earnedPoints ?? 0
                            )
                        }
                        #expect(!unique.isEmpty)
                        let days = Set(unique.values.flatMap { DailySummaryCalculator.days(of: $0, in: .gmt) }).sorted()
                        let expected = DailySummaryCalculator.summaries(of: Array(unique.values), days: days, deviceID: child.id, timeZone: .gmt, at: now)
                        let stored = try await family.parent.summaries(of: child.id, from: days.first!, to: days.last!)
                        #expect(stored.map(\.date) == expected.map(\.date))
                        for (day, want) in zip(stored, expected) {
                            #expect(day.totalLearningSeconds == want.totalLearningSeconds && day.totalRewardSeconds == want.totalRewardSeconds, "\(day.date)")
                            #expect(day.totalPointsEarned == want.totalPointsEarned, "\(day.date)")
                            #expect(day.byApp.map { [$0.logicalID, $0.displayName, $0.category, "\($0.seconds)", "\($0.points)"] }
                                == want.byApp.map { [$0.logicalID, $0.displayName, $0.category.rawValue, "\($0.seconds)", "\($0.points)"] }, "\(day.date)")
                        }
                    }
                }
                #expect(!server.stderr.contains("INTERNAL_ERROR"))
                server.signal(SIGTERM)
                #expect(try await server.waitForExit() == .exited(0))
            }
        }
    }
}
