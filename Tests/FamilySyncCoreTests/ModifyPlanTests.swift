import FamilySyncCore
import Foundation
import Testing

/// A `records/modify` request decided without a database (§5.3): atomic requests fail whole on the
/// first refusal, others fail only the operation at fault; a type's limit a zone (§14) refuses the
/// creations past it.
@Suite struct ModifyPlanTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let parent = AuthenticatedDevice(familyID: UUID(), deviceID: UUID(), role: .parent, status: .active)

    static func budget(_ id: String, _ type: RecordOperationType = .create, index: Int = 0) -> RecordWrite {
        let fields: [String: JSONValue] = [
            "budgetID": .string(id), "category": .string("gaming"), "period": .string("daily"), "dailyMinutes": .number(60), "enabled": .bool(true),
        ]
        return RecordWrite(type: type, recordName: "budget-\(id)", recordType: "Budget", fields: fields, changeTag: nil, clientModifiedAt: nil, path: "operations[\(index)]")
    }

    static func plan(_ operations: [RecordWrite], atomic: Bool) throws(FamilySyncError) -> ModifyPlan {
        try ModifyPlan(operations, stored: [:], caller: parent, zoneKind: .member, now: now, atomic: atomic)
    }

    static func failedNames(_ results: [ModifyPlan.Result]) -> [String] {
        results.compactMap { if case .failed(let name, _, _) = $0 { name } else { nil } }
    }

    @Test func aLimitRefusesTheCreationsPastIt() {
        let limit = ZoneLimit(recordType: "Budget", maximum: 100)
        #expect(limit.overflow(live: 99, creating: 1) == nil)
        let past = limit.overflow(live: 99, creating: 3)
        #expect(past?.fitting == 1)
        #expect(past?.refusal.code == .limitExceeded && past?.refusal.reason == "A zone holds at most 100 Budget records.")
        #expect(limit.overflow(live: 120, creating: 1)?.fitting == 0, "a zone already past its limit takes none")
    }

    @Test func theRegistryDeclaresWhichTypesHaveALimit() {
        #expect(ZoneLimit(recordType: "Budget")?.maximum == 100)
        #expect(ZoneLimit(recordType: "Schedule")?.maximum == Limits.schedulesPerMember)
        #expect(ZoneLimit(recordType: "AppConfiguration") == nil)
    }

    @Test func withoutAtomicOnlyTheCreationsPastTheLimitFail() throws {
        var plan = try Self.plan((0..<3).map { Self.budget("b\($0)", index: $0) }, atomic: false)
        #expect(plan.limits == [ZoneLimit(recordType: "Budget", maximum: 100)])
        try plan.apply(plan.limits[0], live: 98)
        #expect(plan.standing.map(\.index) == [0, 1])
        let results = plan.results(saved: plan.standing.map(\.record))
        #expect(Self.failedNames(results) == ["budget-b2"])
    }

    @Test func atomicallyTheFirstRefusalFailsTheRequest() throws {
        var plan = try Self.plan((0..<3).map { Self.budget("b\($0)", index: $0) }, atomic: true)
        let error = #expect(throws: FamilySyncError.self) { try plan.apply(ZoneLimit(recordType: "Budget", maximum: 100), live: 98) }
        #expect(error?.code == .limitExceeded)

        let missing = Self.budget("gone", .update, index: 1)
        let decided = #expect(throws: FamilySyncError.self) { try Self.plan([Self.budget("b0"), missing], atomic: true) }
        #expect(decided?.code == .badRequest || decided?.code == .notFound)
    }

    @Test func withoutAtomicAFailedDecisionLeavesTheRestStanding() throws {
        var missing = Self.budget("gone", .update, index: 1)
        missing.changeTag = "1"
        let plan = try Self.plan([Self.budget("b0"), missing, Self.budget("b2", index: 2)], atomic: false)
        #expect(plan.standing.map(\.index) == [0, 2])
        #expect(plan.categoryChecks.map { $0.map(\.index) } == [[0], [2]], "each write is checked alone")
        let results = plan.results(saved: plan.standing.map(\.record))
        #expect(Self.failedNames(results) == ["budget-gone"])
        guard case .saved(_, let outcome, _) = results[2] else { Issue.record("not saved"); return }
        #expect(outcome == .created)
    }

    @Test func aRefusedCategoryFailsItsWriteOrTheRequest() throws {
        var plan = try Self.plan([Self.budget("b0"), Self.budget("b1", index: 1)], atomic: false)
        try plan.refuse([plan.standing[1]], .badRequest("unknown", field: "operations[1].record.fields.category"))
        #expect(plan.standing.map(\.index) == [0])
        #expect(plan.limits.count == 1, "what was refused creates nothing")

        var atomic = try Self.plan([Self.budget("b0"), Self.budget("b1", index: 1)], atomic: true)
        #expect(atomic.categoryChecks.map { $0.map(\.index) } == [[0, 1]], "checked at once")
        #expect(throws: FamilySyncError.self) { try atomic.refuse(atomic.categoryChecks[0], .badRequest("unknown")) }
    }
}
