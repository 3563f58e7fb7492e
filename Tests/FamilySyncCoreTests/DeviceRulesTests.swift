import FamilySyncCore
import Foundation
import Testing

/// A device's own rules (§2, §8): what may change of it, when it may be revoked or moved, and
/// whether it records usage; the stores and the clients ask these.
@Suite struct DeviceRulesTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func device(_ role: DeviceRole, status: DeviceStatus = .active, member: UUID? = UUID(), tracked: Bool? = nil) -> Device {
        Device(
            id: UUID(), familyID: UUID(), role: role, name: "Phone", childName: role == .child ? "Kim" : nil, platform: .ios,
            timeZone: "UTC", status: status, registeredAt: now, lastSeenAt: nil, lastSyncAt: nil, memberID: member, tracked: tracked
        )
    }

    @Test func onlyAChildsDeviceHasAChildName() throws {
        #expect(throws: FamilySyncError.badRequest("Only a child device has a child name.", field: "childName")) {
            try Self.device(.parent).updated(name: nil, childName: "Kim", timeZone: nil, tracked: nil)
        }
        let (child, zone) = try Self.device(.child).updated(name: "Tablet", childName: "Kimmy", timeZone: "Europe/Paris", tracked: false)
        #expect(child.name == "Tablet" && child.childName == "Kimmy" && child.timeZone == "Europe/Paris")
        #expect(child.tracked && zone == nil, "a child's device always records")
    }

    @Test func aParentsDeviceTrackedGetsItsZone() throws {
        let parent = Self.device(.parent)
        let (tracked, zone) = try parent.updated(name: nil, childName: nil, timeZone: nil, tracked: true)
        #expect(tracked.tracked && zone == "device-\(parent.id.uuidString.lowercased())")
        let (untracked, none) = try tracked.updated(name: nil, childName: nil, timeZone: nil, tracked: false)
        #expect(!untracked.tracked && none == nil)
        #expect(try parent.updated(name: nil, childName: nil, timeZone: nil, tracked: nil).device == parent)
    }

    @Test func theLastActiveParentDeviceIsNotRevoked() throws {
        #expect(throws: FamilySyncError(.conflict, "This is the family's last parent device; delete the family instead.")) {
            try Self.device(.parent).checkRevocable(otherActiveParents: 0)
        }
        try Self.device(.parent).checkRevocable(otherActiveParents: 1)
        try Self.device(.parent, status: .revoked).checkRevocable(otherActiveParents: 0)
        try Self.device(.child).checkRevocable(otherActiveParents: 0)
        #expect(Self.device(.parent).needsAnotherParent && !Self.device(.child).needsAnotherParent)
    }

    @Test func aDeviceMovesOnlyWhenConfirmedAndToItsRole() throws {
        let child = Self.device(.child)
        let other = Member(id: UUID(), familyID: child.familyID, name: "Sam", role: .child, deviceIDs: [], createdAt: Self.now)
        #expect(try Member.checkMove(child, to: other) == child.memberID)
        let same = Member(id: child.memberID!, familyID: child.familyID, name: "Kim", role: .child, deviceIDs: [child.id], createdAt: Self.now)
        #expect(try Member.checkMove(child, to: same) == nil, "already there: nothing to do")
        #expect(throws: FamilySyncError(.conflict, "The device is revoked.")) { try Member.checkMove(Self.device(.child, status: .revoked), to: other) }
        #expect(throws: FamilySyncError.self) { try Member.checkMove(Self.device(.child, member: nil), to: other) }
        let parent = Member(id: UUID(), familyID: child.familyID, name: "Alex", role: .parent, deviceIDs: [], createdAt: Self.now)
        #expect(throws: FamilySyncError.self) { try Member.checkMove(child, to: parent) }
    }

    @Test func whoRecordsUsageAndWhoTakesCommands() {
        #expect(DeviceRole.child.recordsUsage(tracked: false))
        #expect(!DeviceRole.parent.recordsUsage(tracked: false))
        #expect(DeviceRole.parent.recordsUsage(tracked: true))
        #expect(DeviceRole.child.takesCommands && !DeviceRole.parent.takesCommands)
    }
}
