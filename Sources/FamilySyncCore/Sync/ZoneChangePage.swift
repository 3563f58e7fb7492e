/// One page of a zone's changes as read in one snapshot (PROTOCOL §5.5): its records, oldest change
/// first, the zone they belong to, what the page's token stands for, and whether more come. `Item`
/// is the record as the reader keeps it (the store's keeps the fields as PostgreSQL printed them).
public struct ZoneChangePage<Item: Sendable>: Sendable {
    public var records: [Item]
    public var zone: Zone
    /// What the page's token stands for.
    public var sequence: Int64
    public var moreComing: Bool

    public init(records: [Item], zone: Zone, sequence: Int64, moreComing: Bool) {
        self.records = records
        self.zone = zone
        self.sequence = sequence
        self.moreComing = moreComing
    }
}
