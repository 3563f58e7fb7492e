import Foundation

extension Alert {
    /// `DailySummary` → budget `Alert` (§9.4): when a device's summaries of some days change, its
    /// member's days (every device of the member with a zone, `MemberDay`) are measured against the
    /// member's enabled budgets, and each percent reached that has no alert yet is one, in the
    /// member's zone. An alert's id comes from (member, budget, day, percent), so each is made once
    /// whatever the order, repetition or concurrency of uploads; one made before and dismissed or
    /// deleted since is not made again.
    public static let budgetDerivation = Derivation { written, context in
        let fresh = written.compactMap { DailySummary(fields: $0.fields) }
        guard let owner = context.owner, let member = owner.memberID, !fresh.isEmpty else { return .none }
        let memberZone = Member.zoneName(of: member)
        let dates = Set(fresh.map(\.date)).sorted()
        let devices = owner.memberDevices.contains { $0.deviceID == owner.deviceID }
            ? owner.memberDevices : owner.memberDevices + [ZoneOwner.MemberDevice(deviceID: owner.deviceID, platform: .other, zoneName: context.zone.name)]
        let others = devices.filter { $0.deviceID != owner.deviceID }
        let reads: [StoredRecordQuery] = [
            .ofType(RecordTypeName.budget, zone: memberZone),
            .namedIn(zones: others.map(\.zoneName), names: dates.map(DailySummary.recordName)),
        ]
        return Derivation.Plan(reads: reads) { stored in
            let budgets = stored.filter { $0.recordType == RecordTypeName.budget }.compactMap { Budget(fields: $0.fields) }.filter(\.enabled)
            guard !budgets.isEmpty else { return .derived([]) }
            var summaries: [String: [String: DailySummary]] = [context.zone.name: Dictionary(fresh.map { ($0.date, $0) }, uniquingKeysWith: { $1 })]
            for record in stored where record.recordType == RecordTypeName.dailySummary {
                if let summary = DailySummary(fields: record.fields) { summaries[record.zoneName, default: [:]][summary.date] = summary }
            }
            let days = dates.map { date in
                MemberDay(date: date, devices: devices.map { MemberDay.DeviceDay(deviceID: $0.deviceID, platform: $0.platform, summary: summaries[$0.zoneName]?[date]) })
            }
            let due = { @Sendable (existing: Set<UUID>) in
                days.flatMap { day in
                    BudgetEvaluation.alertsDue(
                        budgets: budgets, date: day.date, byCategory: day.secondsByCategory, existing: existing, member: member, device: context.writer, at: context.now
                    )
                }
            }
            let candidates = due([])
            guard !candidates.isEmpty else { return .derived([]) }
            // Which of them exist already, dismissed and deleted ones too: Core's `existing` decides.
            return .read(Derivation.Plan(reads: [.namedIn(zones: [memberZone], names: candidates.map(\.recordName), includingDeleted: true)]) { made in
                let names = Set(made.map(\.recordName))
                let existing = Set(candidates.filter { names.contains($0.recordName) }.map(\.alertID))
                return .derived(due(existing).map { Derivation.Derived($0.record(by: context.writer), into: memberZone) })
            })
        }
    }

    /// The alert as the server writes it for `device`, new.
    public func record(by device: UUID, role: WriterRole = .server) -> Record {
        Record(
            recordName: recordName, recordType: RecordTypeName.alert, fields: fields, changeTag: "", deleted: false, createdAt: createdAt,
            createdBy: device, modifiedAt: createdAt, modifiedBy: device, modifiedRole: role, clientModifiedAt: createdAt
        )
    }
}
