import Foundation

/// A record type's limit a zone (`RecordType.maximumPerZone`; PROTOCOL §14: 50 schedules and 100
/// budgets a member). The store counts the zone's live records of the type; the decision is here.
public struct ZoneLimit: Sendable, Equatable {
    public var recordType: String
    public var maximum: Int

    public init(recordType: String, maximum: Int) {
        self.recordType = recordType
        self.maximum = maximum
    }

    /// The registry's limit of `recordType`; nil for a type without one.
    public init?(recordType: String) {
        guard let maximum = RecordTypeRegistry.types[recordType]?.maximumPerZone else { return nil }
        self.init(recordType: recordType, maximum: maximum)
    }

    /// `creating` new records beside `live` stored ones: nil when all fit; else how many fit (the
    /// first, in request order) and the refusal of the rest.
    public func overflow(live: Int, creating: Int) -> (fitting: Int, refusal: FamilySyncError)? {
        let room = max(0, maximum - live)
        guard creating > room else { return nil }
        return (room, .limitExceeded("A zone holds at most \(maximum) \(recordType) records."))
    }
}
