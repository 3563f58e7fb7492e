import FamilySyncCore
@testable import FamilySyncPostgres
import FamilySyncTestSupport
import Foundation
import PostgresNIO
import Testing

/// PROTOCOL §9.4's promise: a budget alert exists exactly once per (budget, day, percent) the
/// member's usage reaches, whatever the order, repetition and concurrency of uploads. Random
/// budgets on a member with two devices; random sessions and daily totals from both, each upload
/// sent once or twice, all at once. Usage only grows, so the percents reached at the end are the
/// ones that must each have one alert, and the uploads' answers must name each of those once.
@Suite struct BudgetAlertPropertyTests {
    static let now = Instant.parse("2026-11-20T23:00:00Z")!
    static let days = ["2026-11-19", "2026-11-20"]
    static let apps: [(String, CategoryID)] = [("khan", .learning), ("game", .reward), ("insta", CategoryID(rawValue: "social_media")!)]

    @Test(arguments: 1...8)
    func eachReachedPercentHasExactlyOneAlert(_ seed: Int) async throws {
        var random = SeededGenerator(seed: UInt64(seed))
        try await withServingDatabase { database, client, _ in
            let family = try await RecordEnginePropertyTests.makeFamily(database)
            let clock = ManualClock(Self.now)
            let store = PostgresUsageIntake(changeLog: ChangeLog(database: database, logger: testLogger), clock: clock, logger: testLogger)
            let (first, second, member) = try await Self.twoDevicesOfOneMember(family, database, client)

            // One to three budgets with random allowances and percents.
            var budgets: [(id: String, fields: [String: JSONValue])] = []
            for (index, category) in ["learning", "*", "social_media"].enumerated() where index == 0 || Bool.random(using: &random) {
                let percents = [25, 50, 80, 100, 150].filter { _ in Bool.random(using: &random) }
                var fields: [String: JSONValue] = [
                    "budgetID": .string("b\(index)"), "category": .string(category), "enabled": .bool(true),
                    "alertAtPercent": .array((percents.isEmpty ? [100] : percents).map { .number(Double($0)) }),
                ]
                if Bool.random(using: &random) {
                    fields["period"] = .string("daily")
                    fields["dailyMinutes"] = .number(Double(Int.random(in: 20...120, using: &random)))
                } else {
                    fields["period"] = .string("monthly")
                    fields["monthlyHours"] = .number(Double(Int.random(in: 10...40, using: &random)))
                }
                budgets.append(("b\(index)", fields))
            }
            let budgetRecords = budgets
            try await ChangeLog(database: database, logger: testLogger).write(family: family.child.familyID, as: .server) { locked in
                let records = budgetRecords.map { id, fields in
                    Record(
                        recordName: "budget-\(id)", recordType: "Budget", fields: fields, changeTag: "", deleted: false,
                        createdAt: Self.now, createdBy: family.parents[0].deviceID, modifiedAt: Self.now, modifiedBy: family.parents[0].deviceID,
                        modifiedRole: .parent, clientModifiedAt: Self.now
                    )
                }
                try await locked.commit(records, into: Member.zoneName(of: member))
            }

            // Uploads: sessions or a day's totals, from either device; some sent twice.
            enum Upload: Sendable {
                case sessions(AuthenticatedDevice, [UsageSession])
                case totals(AuthenticatedDevice, String, [DailyTotals.App])
            }
            var uploads: [Upload] = []
            for _ in 0..<Int.random(in: 6...14, using: &random) {
                let device = Bool.random(using: &random) ? first : second
                let day = try #require(DailySummaryCalculator.interval(of: Self.days.randomElement(using: &random)!, in: .gmt))
                if Bool.random(using: &random) {
                    let sessions = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                        let (app, category) = Self.apps.randomElement(using: &random)!
                        let start = day.start.addingTimeInterval(TimeInterval(Int.random(in: 0...(20 * 3600), using: &random)))
                        let minutes = Int.random(in: 5...40, using: &random)
                        return UsageSession(
                            recordID: UUID(uuid: UsageSummaryPropertyTests.uuid(&random)), logicalID: app, displayName: app, category: category,
                            sessionStart: start, sessionEnd: start.addingTimeInterval(TimeInterval(minutes * 60)), totalSeconds: minutes * 60, earnedPoints: 0
                        )
                    }
                    uploads.append(.sessions(device, sessions))
                } else {
                    let apps = Self.apps.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)).map { app, category in
                        DailyTotals.App(logicalID: app, displayName: app, category: category, totalSeconds: Int.random(in: 0...(3 * 3600), using: &random))
                    }
                    uploads.append(.totals(device, DailySummaryCalculator.day(of: day.start, in: .gmt), apps))
                }
                if Bool.random(using: &random), let last = uploads.last { uploads.append(last) }
            }

            // All at once; a write queued past the lock's bound (503) is sent again, as clients do.
            let announced = try await withThrowingTaskGroup(of: [Alert].self) { group in
                for upload in uploads.shuffled(using: &random) {
                    group.addTask {
                        for _ in 0..<200 {
                            do {
                                switch upload {
                                case .sessions(let device, let sessions):
                                    return try await store.upload(sessions, timeZone: "UTC", child: device, items: ItemPath { "records[\($0)]" }, as: .server).alerts
                                case .totals(let device, let date, let apps):
                                    return try await store.uploadTotals(apps, date: date, timeZone: "UTC", retention: 400 * 86_400, child: device, items: ItemPath { "apps[\($0)]" }, as: .server).alerts
                                }
                            } catch let error as FamilySyncError where error.code == .tryAgainLater {
                                try await Task.sleep(for: .milliseconds(20))
                            }
                        }
                        throw TestFailure("an upload never went through")
                    }
                }
                return try await group.reduce(into: [Alert]()) { $0 += $1 }
            }

            // What the final usage reaches, from the member's stored days.
            let memberDays = try await client.withConnection { connection in
                try await MemberRows.days(familyID: family.child.familyID, memberID: member, dates: Self.days, on: connection, logger: testLogger)
            }
            let parsed = budgets.compactMap { Budget(fields: $0.fields) }
            #expect(parsed.count == budgets.count)
            let due = memberDays.flatMap { day in
                BudgetEvaluation.alertsDue(budgets: parsed, date: day.date, byCategory: day.secondsByCategory, existing: [], member: member, device: nil, at: Self.now)
            }
            func key(_ alert: Alert) -> String { "\(alert.budgetID ?? "-") \(alert.date ?? "-") \(alert.percent ?? -1)" }
            let stored = try await client.withConnection { connection in
                try await RecordRow.fields(ofType: "Alert", inZone: Member.zoneName(of: member), family: family.child.familyID, on: connection, logger: testLogger)
            }.compactMap(Alert.init(fields:))
            #expect(stored.map(key).sorted() == due.map(key).sorted(), "seed \(seed): stored alerts are the percents reached")
            #expect(announced.map(key).sorted() == due.map(key).sorted(), "seed \(seed): each alert is announced once")
            #expect(Set(stored.map(\.alertID)) == Set(due.map(\.alertID)))
        }
    }

    /// A second device joined to the first's member (§8), both as authenticated callers.
    static func twoDevicesOfOneMember(_ family: RecordEnginePropertyTests.Family, _ database: Database, _ client: PostgresClient) async throws -> (AuthenticatedDevice, AuthenticatedDevice, UUID) {
        let rows = try await client.query("SELECT member_id FROM devices WHERE device_id = \(family.child.deviceID)", logger: testLogger)
        let member = try #require(try await rows.decode(UUID.self).first { _ in true })
        let pairings = PostgresPairingStore(changeLog: ChangeLog(database: database, logger: testLogger), clock: ManualClock(Self.now), logger: testLogger)
        let (pairing, token) = try await pairings.create(
            familyID: family.child.familyID, createdBy: family.parents[0].deviceID, role: .child, childName: nil, memberID: member, ttlSeconds: 600, as: .server
        )
        let accepted = try await pairings.accept(pairingID: pairing.id, token: token, parentDeviceID: nil, name: "Mac", platform: .macos, timeZone: "UTC", as: .server)
        _ = try await pairings.decide(.confirm, familyID: family.child.familyID, pairingID: pairing.id, as: .server)
        var first = family.child
        first.memberID = member
        let second = AuthenticatedDevice(familyID: family.child.familyID, deviceID: accepted.device.id, role: .child, status: .active, memberID: member)
        return (first, second, member)
    }
}
