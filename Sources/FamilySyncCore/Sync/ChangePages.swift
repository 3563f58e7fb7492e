import Foundation

/// The pages of the change feeds (PROTOCOL §5.5) once read: which token a page may start from,
/// where it ends and what its own token stands for.
public enum ChangePages {
    /// A zone's token must be of this zone in this incarnation, and within what the family kept.
    public static func checkZoneToken(_ token: ChangeToken, of zone: Zone, position: ChangeLogPosition) throws(FamilySyncError) {
        guard token.scope == .zone(name: zone.name, incarnation: zone.incarnation) else {
            throw FamilySyncError(.badChangeToken, "The change token belongs to another zone.", field: "since")
        }
        try position.checkZoneToken(token.sequence)
    }

    /// A zone's page from a read of up to `limit + 1` changes after `after`, oldest first: the one
    /// past `limit` only tells that more come. The page's token stands for its last change when
    /// more come, else for the family's position (nothing later is in the zone).
    public static func zonePage<Item>(
        _ read: [(item: Item, sequence: Int64)], limit: Int, after: Int64, position: ChangeLogPosition
    ) -> (items: [Item], sequence: Int64, moreComing: Bool) {
        let moreComing = read.count > limit
        let page = moreComing ? read.dropLast() : read[...]
        let last = page.last?.sequence ?? after
        // A closure, not `\.item`: in this generic function a key path is built at run time, each call.
        return (page.map { $0.item }, moreComing ? last : position.sequence, moreComing)
    }

    /// The failures that belong to one zone of a multi-zone fetch; any other fails the request.
    public static let zoneFailures: Set<FamilySyncError.Code> = [.zoneNotFound, .badChangeToken, .changeTokenExpired]

    /// The most records the page of the zone at `index` of a multi-zone fetch of `count` may hold:
    /// `limit`, less what it must leave of the `room` the answer has left for one record of every
    /// zone after it, so that every zone gets a real page with a token for what it returned (a
    /// zone read from the start has no token to give for a page it never read); at least one.
    public static func pageLimit(zoneAt index: Int, of count: Int, limit: Int, room: Int) -> Int {
        max(1, min(limit, room - (count - index - 1)))
    }

    /// A page of the database's feed: zones that changed after the token's sequence.
    public struct DatabasePage: Sendable, Equatable {
        public var zones: [Zone]
        public var sequence: Int64
        public var moreComing: Bool

        public init(zones: [Zone], sequence: Int64, moreComing: Bool) {
            self.zones = zones
            self.sequence = sequence
            self.moreComing = moreComing
        }
    }

    /// A device awaiting confirmation has an empty database until a parent confirms it: its page,
    /// with nothing to read. Nil for an active device.
    public static func emptyDatabase(for access: ZoneAccess, since: ChangeToken?) -> DatabasePage? {
        guard access.caller.status != .active else { return nil }
        return DatabasePage(zones: [], sequence: since?.sequence ?? 0, moreComing: false)
    }

    /// The database's page from the family's zones (deleted ones included): those the caller sees
    /// that changed after `since` (without a token, the live ones), oldest change first, at most
    /// `limit`. The token must lie within what the family kept.
    public static func databasePage(
        of zones: [Zone], for access: ZoneAccess, since: ChangeToken?, limit: Int, position: ChangeLogPosition
    ) throws(FamilySyncError) -> DatabasePage {
        if let since { try position.checkDatabaseToken(since.sequence) }
        let after = since?.sequence ?? -1
        let visible = zones
            .filter { $0.changedSequence > after && access.seesInDatabaseFeed($0) && (since != nil || !$0.deleted) }
            .sorted { ($0.changedSequence, $0.name) < ($1.changedSequence, $1.name) }
        let page = Array(visible.prefix(limit))
        let moreComing = visible.count > limit
        return DatabasePage(zones: page, sequence: moreComing ? page.last!.changedSequence : position.sequence, moreComing: moreComing)
    }
}
