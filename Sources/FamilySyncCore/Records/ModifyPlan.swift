import Foundation

/// A `records/modify` request as the server decides it (PROTOCOL §5.3): each operation's
/// `WriteDecision`, then what the checks that need more of the family refuse (a family's own
/// categories, §9.1; a type's `ZoneLimit`, §14). With `atomic`, the first refusal fails the whole
/// request (thrown); without, only the operation at fault fails. Pure: the store reads under the
/// family's lock, asks here, and commits what stands.
public struct ModifyPlan: Sendable {
    /// One operation's result, in request order.
    public enum Result: Sendable {
        case saved(Record, outcome: WriteOutcome, incomingWon: Bool)
        case failed(recordName: String, error: FamilySyncError, serverRecord: Record?)
    }

    /// An operation whose write stands so far.
    public struct Write: Sendable {
        public var index: Int
        public var record: Record
        public var outcome: WriteOutcome
        public var incomingWon: Bool
    }

    public let atomic: Bool
    /// The writes that stand, in request order.
    public private(set) var standing: [Write] = []
    private var failures: [Result?]

    /// Decides every operation against `stored` (the zone's records of those names, tombstones
    /// included).
    public init(
        _ operations: [RecordWrite], stored: [String: Record], caller: AuthenticatedDevice, zoneKind: RecordSchema.ZoneKind, now: Date, atomic: Bool
    ) throws(FamilySyncError) {
        self.atomic = atomic
        failures = Array(repeating: nil, count: operations.count)
        for (index, operation) in operations.enumerated() {
            do throws(WriteDecision.Failure) {
                let decision = try WriteDecision.decide(operation, stored: stored[operation.recordName], caller: caller, zoneKind: zoneKind, now: now)
                standing.append(Write(index: index, record: decision.record, outcome: decision.outcome, incomingWon: decision.incomingWon))
            } catch {
                if atomic { throw error.error }
                failures[index] = .failed(recordName: operation.recordName, error: error.error, serverRecord: error.serverRecord)
            }
        }
    }

    /// Refuses `writes` with `error`: the whole request when atomic.
    public mutating func refuse(_ writes: [Write], _ error: FamilySyncError) throws(FamilySyncError) {
        if atomic { throw error }
        for write in writes {
            failures[write.index] = .failed(recordName: write.record.recordName, error: error, serverRecord: nil)
        }
        let refused = Set(writes.map(\.index))
        standing.removeAll { refused.contains($0.index) }
    }

    /// What the category check takes at a time: every write at once when atomic (the first at
    /// fault fails them all), else each alone.
    public var categoryChecks: [[Write]] {
        atomic ? [standing] : standing.map { [$0] }
    }

    /// The limits of the types that standing writes create, in request order: the store counts
    /// each type's live records in the zone for `apply(_:live:)`.
    public var limits: [ZoneLimit] {
        var seen: Set<String> = []
        return standing.compactMap { write in
            guard write.outcome == .created, seen.insert(write.record.recordType).inserted else { return nil }
            return ZoneLimit(recordType: write.record.recordType)
        }
    }

    /// With `live` records of the limit's type in the zone, refuses the creations past it.
    public mutating func apply(_ limit: ZoneLimit, live: Int) throws(FamilySyncError) {
        let created = standing.filter { $0.outcome == .created && $0.record.recordType == limit.recordType }
        guard let overflow = limit.overflow(live: live, creating: created.count) else { return }
        try refuse(Array(created.dropFirst(overflow.fitting)), overflow.refusal)
    }

    /// Every operation's result once the standing writes are committed as `saved` (in their order).
    public func results(saved: [Record]) -> [Result] {
        var results = failures
        for (write, record) in zip(standing, saved) {
            results[write.index] = .saved(record, outcome: write.outcome, incomingWon: write.incomingWon)
        }
        return results.map { $0! }
    }
}
