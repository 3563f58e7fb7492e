import FamilySyncCore
import Foundation
import Testing

/// The change feeds' pages once read (§5.5): tokens, where a page ends, what its token stands for.
@Suite struct ChangePagesTests {
    static let family = UUID()
    static let parent = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .parent, status: .active)
    static let child = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .child, status: .active)

    static func zone(_ name: String, at sequence: Int64, deleted: Bool = false, child: UUID? = nil) -> Zone {
        Zone(name: name, childDeviceID: child, incarnation: UUID(), changedSequence: sequence, deleted: deleted)
    }

    @Test func aZonesTokenMustBeOfItsIncarnationAndKept() throws {
        let zone = Self.zone("notes", at: 5)
        let position = ChangeLogPosition(sequence: 10, horizon: 3)
        func token(_ scope: ChangeToken.Scope, _ sequence: Int64) -> ChangeToken {
            ChangeToken(familyID: Self.family, deviceID: Self.parent.deviceID, scope: scope, sequence: sequence)
        }
        try ChangePages.checkZoneToken(token(.zone(name: "notes", incarnation: zone.incarnation), 4), of: zone, position: position)
        let other = #expect(throws: FamilySyncError.self) {
            try ChangePages.checkZoneToken(token(.zone(name: "notes", incarnation: UUID()), 4), of: zone, position: position)
        }
        #expect(other?.code == .badChangeToken && other?.field == "since")
        let old = #expect(throws: FamilySyncError.self) {
            try ChangePages.checkZoneToken(token(.zone(name: "notes", incarnation: zone.incarnation), 2), of: zone, position: position)
        }
        #expect(old?.code == .changeTokenExpired)
    }

    @Test func aFullPageStandsForItsLastChangeAndTheLastPageForTheFamily() {
        let position = ChangeLogPosition(sequence: 50, horizon: 0)
        let read: [(item: String, sequence: Int64)] = [("a", 11), ("b", 12), ("c", 14)]
        let full = ChangePages.zonePage(read, limit: 2, after: 10, position: position)
        #expect(full.items == ["a", "b"] && full.sequence == 12 && full.moreComing)
        let last = ChangePages.zonePage(read, limit: 3, after: 10, position: position)
        #expect(last.items == ["a", "b", "c"] && last.sequence == 50 && !last.moreComing)
        let nothing = ChangePages.zonePage([(item: String, sequence: Int64)](), limit: 3, after: 10, position: position)
        #expect(nothing.items.isEmpty && nothing.sequence == 50 && !nothing.moreComing)
    }

    /// A multi-zone fetch leaves every later zone room for one record, and gives every zone one.
    @Test func everyZoneOfAMultiZoneFetchGetsAPage() {
        #expect(ChangePages.pageLimit(zoneAt: 0, of: 3, limit: 600, room: 1000) == 600)
        #expect(ChangePages.pageLimit(zoneAt: 1, of: 3, limit: 600, room: 400) == 399)
        #expect(ChangePages.pageLimit(zoneAt: 2, of: 3, limit: 600, room: 1) == 1)
        #expect(ChangePages.pageLimit(zoneAt: 2, of: 3, limit: 600, room: 0) == 1)
    }

    @Test func theDatabaseFeedShowsDeletionsToParentsAndNothingToAnAwaitingDevice() throws {
        let position = ChangeLogPosition(sequence: 30, horizon: 0)
        let zones = [
            Self.zone("family", at: 20), Self.zone("notes", at: 12, deleted: true), Self.zone("b", at: 9),
            Self.zone("a", at: 9), Self.zone("child-x", at: 25, child: Self.child.deviceID),
        ]
        let since = ChangeToken(familyID: Self.family, deviceID: Self.parent.deviceID, scope: .database, sequence: 5)
        let parent = try ChangePages.databasePage(of: zones, for: ZoneAccess(Self.parent), since: since, limit: 10, position: position)
        #expect(parent.zones.map(\.name) == ["a", "b", "notes", "family", "child-x"] && parent.sequence == 30 && !parent.moreComing)
        let firstFull = try ChangePages.databasePage(of: zones, for: ZoneAccess(Self.parent), since: nil, limit: 10, position: position)
        #expect(!firstFull.zones.contains { $0.deleted }, "without a token, live zones only")
        let paged = try ChangePages.databasePage(of: zones, for: ZoneAccess(Self.parent), since: since, limit: 2, position: position)
        #expect(paged.zones.map(\.name) == ["a", "b"] && paged.sequence == 9 && paged.moreComing)
        let child = try ChangePages.databasePage(of: zones, for: ZoneAccess(Self.child), since: since, limit: 10, position: position)
        #expect(child.zones.map(\.name) == ["family", "child-x"])

        var awaiting = Self.child
        awaiting.status = .awaitingConfirmation
        #expect(ChangePages.emptyDatabase(for: ZoneAccess(awaiting), since: nil) == ChangePages.DatabasePage(zones: [], sequence: 0, moreComing: false))
        #expect(ChangePages.emptyDatabase(for: ZoneAccess(Self.child), since: nil) == nil)
        let expired = #expect(throws: FamilySyncError.self) {
            try ChangePages.databasePage(of: zones, for: ZoneAccess(Self.parent), since: since, limit: 10, position: ChangeLogPosition(sequence: 30, horizon: 8))
        }
        #expect(expired?.code == .changeTokenExpired)
    }

    @Test func aHiddenZoneIsAMissingOneAndAReadOnlyOneIsDenied() throws {
        let other = Self.zone("child-y", at: 1, child: UUID())
        #expect(throws: FamilySyncError.self) { try ZoneAccess(Self.child).checkRead(other) }
        #expect(throws: FamilySyncError.self) { try ZoneAccess(Self.child).checkRead(nil) }
        let family = Self.zone("family", at: 1)
        try ZoneAccess(Self.child).checkRead(family)
        let denied = #expect(throws: FamilySyncError.self) { try ZoneAccess(Self.child).checkWrite(family) }
        #expect(denied?.code == .accessDenied)
        let hidden = #expect(throws: FamilySyncError.self) { try ZoneAccess(Self.child).checkWrite(other) }
        #expect(hidden?.code == .zoneNotFound)
    }
}
