import FamilySyncCore
import Foundation
import Testing

/// PROTOCOL §9.3–§9.4's budget status and budget alerts, decided without a database: once per
/// (budget, day, percent), whatever the order and repetition of evaluations.
@Suite struct BudgetAlertTests {
    static let social = CategoryID(rawValue: "social_media")!
    static let member = UUID()
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    /// The seed's 30 h a month of social media: 60 minutes a day in November.
    static let budget = Budget(budgetID: "social", scope: .category(social), period: .monthly, monthlyHours: 30)

    static func due(_ budgets: [Budget], minutes: Int, existing: Set<UUID> = [], category: CategoryID = social) -> [Alert] {
        BudgetEvaluation.alertsDue(
            budgets: budgets, date: "2026-11-23", byCategory: [category: minutes * 60], existing: existing, member: member, device: nil, at: now
        )
    }

    @Test func eachPercentIsReachedOnce() {
        #expect(Self.due([Self.budget], minutes: 47).isEmpty)  // 78 %
        let first = Self.due([Self.budget], minutes: 48)
        #expect(first.map(\.percent) == [80])
        #expect(first.first?.message == "80% of the social_media budget used on 2026-11-23: 48 of 60 minutes.")
        // The same evaluation again, with the alert stored: nothing new.
        #expect(Self.due([Self.budget], minutes: 50, existing: Set(first.map(\.alertID))).isEmpty)
        let second = Self.due([Self.budget], minutes: 61, existing: Set(first.map(\.alertID)))
        #expect(second.map(\.percent) == [100])
        // Uploads in another order (one that jumps straight past both) decide the same two alerts.
        let jumped = Self.due([Self.budget], minutes: 61)
        #expect(Set(jumped.map(\.alertID)) == Set((first + second).map(\.alertID)))
    }

    /// A budget changed in the middle of the day: what is decided is against the budget as it
    /// is now, and an alert already made is never made again.
    @Test func aBudgetChangedMidDay() {
        let made = Self.due([Self.budget], minutes: 50)
        #expect(made.map(\.percent) == [80])
        var raised = Self.budget
        raised.monthlyHours = 60  // 120 minutes a day: 50 is 41 %
        #expect(Self.due([raised], minutes: 50, existing: Set(made.map(\.alertID))).isEmpty)
        var lowered = Self.budget
        lowered.monthlyHours = 20  // 40 minutes a day: 50 is 125 %
        #expect(Self.due([lowered], minutes: 50, existing: Set(made.map(\.alertID))).map(\.percent) == [100])
    }

    @Test func allScreenTimeLeavesOutTheExcludedCategories() {
        let all = Budget(budgetID: "all", scope: .all, period: .daily, dailyMinutes: 100, alertAtPercent: [100])
        let learning = Budget(budgetID: "learning", scope: .category(.learning), period: .daily, dailyMinutes: 600, isExcluded: true, alertAtPercent: [100])
        let usage: [CategoryID: Int] = [.learning: 90 * 60, Self.social: 50 * 60, .reward: 40 * 60]
        let status = BudgetEvaluation.status(of: [all, learning], date: "2026-11-23", byCategory: usage)
        #expect(status.map(\.budgetID) == ["all", "learning"])
        #expect(status[0].usedMinutes == 90 && status[0].percent == 90 && !status[0].isOverBudget && status[0].remainingMinutes == 10)
        var counted = learning
        counted.isExcluded = false
        #expect(BudgetEvaluation.status(of: [all, counted], date: "2026-11-23", byCategory: usage)[0].percent == 180)
        // A disabled budget neither counts nor excludes.
        counted.enabled = false
        counted.isExcluded = true
        #expect(BudgetEvaluation.status(of: [all, counted], date: "2026-11-23", byCategory: usage).map(\.percent) == [180])
    }

    @Test func aZeroAllowanceIsOverAtTheFirstSecond() {
        let none = Budget(budgetID: "games", scope: .category(CategoryID(rawValue: "gaming")!), period: .daily, dailyMinutes: 0, alertAtPercent: [50, 100, 1000])
        #expect(Self.due([none], minutes: 0, category: CategoryID(rawValue: "gaming")!).isEmpty)
        let alerts = BudgetEvaluation.alertsDue(
            budgets: [none], date: "2026-11-23", byCategory: [CategoryID(rawValue: "gaming")!: 1], existing: [], member: Self.member, device: nil, at: Self.now
        )
        #expect(alerts.map(\.percent) == [50, 100, 1000])
    }

    @Test func anAlertsIDComesFromItsBudgetDayAndPercent() {
        let member = UUID(), sibling = UUID()
        let id = Alert.budgetAlertID(member: member, budgetID: "social", date: "2026-11-23", percent: 80)
        #expect(id == Alert.budgetAlertID(member: member, budgetID: "social", date: "2026-11-23", percent: 80))
        #expect(id != Alert.budgetAlertID(member: member, budgetID: "social", date: "2026-11-23", percent: 100))
        #expect(id != Alert.budgetAlertID(member: member, budgetID: "social", date: "2026-11-24", percent: 80))
        #expect(id != Alert.budgetAlertID(member: member, budgetID: "social2", date: "2026-11-23", percent: 80))
        #expect(id != Alert.budgetAlertID(member: sibling, budgetID: "social", date: "2026-11-23", percent: 80))
        #expect(id.uuidString.lowercased().dropFirst(14).first == "8", "a version 8 UUID")
    }

    @Test func anAlertRoundTripsThroughItsFields() throws {
        let alert = try #require(Self.due([Self.budget], minutes: 61).last)
        #expect(Alert(fields: alert.fields) == alert)
        var dismissed = alert
        dismissed.dismissedAt = Self.now.addingTimeInterval(60)
        #expect(Alert(fields: dismissed.fields) == dismissed)
    }
}

/// `DailySummary` → budget `Alert` as the registry declares it: the member's days over every
/// device with a zone, its budgets read, and the candidates that exist already left out by Core.
@Suite struct BudgetAlertDerivationTests {
    static let member = UUID()
    static let tablet = UUID()
    static let phone = UUID()
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let social = CategoryID(rawValue: "social_media")!

    static var context: DerivationContext {
        let zone = Zone(name: Device.zoneName(forChild: tablet), childDeviceID: tablet, incarnation: UUID(), changedSequence: 1, deleted: false)
        let owner = ZoneOwner(
            deviceID: tablet, deviceName: "Tablet", timeZoneName: "UTC", memberID: member,
            memberDevices: [
                .init(deviceID: tablet, platform: .ios, zoneName: zone.name),
                .init(deviceID: phone, platform: .ios, zoneName: Device.zoneName(forChild: phone)),
            ]
        )
        return DerivationContext(zone: zone, writer: tablet, timeZone: .gmt, now: now, owner: owner)
    }

    static func summary(_ device: UUID, minutes: Int) -> DailySummary {
        DailySummary(
            date: "2026-11-23", deviceID: device, totalLearningSeconds: 0, totalRewardSeconds: 0, totalPointsEarned: 0,
            byApp: [.init(logicalID: "chat", displayName: "Chat", category: social, seconds: minutes * 60, points: 0)], lastUpdated: now
        )
    }

    static func record(_ summary: DailySummary) -> Record {
        Record(
            recordName: summary.recordName, recordType: "DailySummary", fields: summary.fields, changeTag: "", deleted: false, createdAt: now,
            createdBy: tablet, modifiedAt: now, modifiedBy: tablet, modifiedRole: .server, clientModifiedAt: now
        )
    }

    /// 60 minutes a day; the tablet's 30 and the phone's 20 make 83 %: the 80 % alert, once.
    @Test func theMembersDevicesAddUpAndAnExistingAlertIsNotMadeAgain() throws {
        let budget: [String: JSONValue] = [
            "budgetID": .string("social"), "category": .string("social_media"), "enabled": .bool(true), "period": .string("daily"),
            "dailyMinutes": .number(60), "alertAtPercent": .array([.number(80), .number(100)]),
        ]
        let plan = Alert.budgetDerivation.plan([Self.record(Self.summary(Self.tablet, minutes: 30))], Self.context)
        let memberZone = Member.zoneName(of: Self.member)
        #expect(plan.reads == [
            .ofType("Budget", zone: memberZone), .namedIn(zones: [Device.zoneName(forChild: Self.phone)], names: ["summary-2026-11-23"]),
        ])
        let stored = [
            StoredRecord(recordName: "budget-social", recordType: "Budget", fields: budget, createdAt: Self.now, zoneName: memberZone),
            StoredRecord(Self.record(Self.summary(Self.phone, minutes: 20))).with(zone: Device.zoneName(forChild: Self.phone)),
        ]
        guard case .read(let existing) = plan.next(stored) else { Issue.record("no read of the existing alerts"); return }
        let expected = Alert.budgetAlertID(member: Self.member, budgetID: "social", date: "2026-11-23", percent: 80)
        #expect(existing.reads == [.namedIn(zones: [memberZone], names: [Alert.recordName(expected)], includingDeleted: true)])
        guard case .derived(let fresh) = existing.next([]) else { Issue.record("nothing derived"); return }
        #expect(fresh.map(\.zone) == [memberZone])
        #expect(fresh.compactMap { Alert(fields: $0.record.fields)?.percent } == [80])
        #expect(fresh.first?.record.createdBy == Self.tablet)
        // Made before (and dismissed since, a tombstone or not): nothing.
        let made = StoredRecord(recordName: Alert.recordName(expected), recordType: "Alert", fields: [:], createdAt: Self.now, zoneName: memberZone, deleted: true)
        guard case .derived(let again) = existing.next([made]) else { Issue.record("another read"); return }
        #expect(again.isEmpty)
    }

    @Test func aDeviceWithoutMemberOrAMemberWithoutBudgetsDerivesNothing() {
        var context = Self.context
        context.owner?.memberID = nil
        #expect(Alert.budgetDerivation.plan([Self.record(Self.summary(Self.tablet, minutes: 90))], context).reads.isEmpty)
        let plan = Alert.budgetDerivation.plan([Self.record(Self.summary(Self.tablet, minutes: 90))], Self.context)
        guard case .derived(let none) = plan.next([]) else { Issue.record("read past no budgets"); return }
        #expect(none.isEmpty)
    }
}

extension StoredRecord {
    func with(zone: String) -> StoredRecord {
        var copy = self
        copy.zoneName = zone
        return copy
    }
}
