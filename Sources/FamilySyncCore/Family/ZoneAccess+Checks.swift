import Foundation

extension ZoneAccess {
    /// A zone that is not there and one the caller may not read are the same `ZONE_NOT_FOUND`, so
    /// that an answer never tells a hidden zone from a missing one.
    @discardableResult
    public func checkRead(_ zone: Zone?) throws(FamilySyncError) -> Zone {
        guard let zone, canRead(zone) else { throw FamilySyncError(.zoneNotFound, "No such zone.") }
        return zone
    }

    /// A zone the caller reads but may not write is 403; one it may not read is hidden first.
    public func checkWrite(_ zone: Zone) throws(FamilySyncError) {
        try checkRead(zone)
        guard canWrite(zone) else { throw FamilySyncError(.accessDenied, "This zone is read-only for this device.") }
    }

    /// Whether the database's feed (§5.5) names the zone to the caller: the zones it reads, and to
    /// a parent the deletion of any zone.
    public func seesInDatabaseFeed(_ zone: Zone) -> Bool {
        canRead(zone) || (zone.deleted && isParent)
    }
}
