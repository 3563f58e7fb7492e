import FamilySyncCore
import Foundation
import Testing

/// §12's background pushes, without a database: who a change wakes (the long poll's rule, the
/// writer left out), and the coalescing interval.
@Suite struct BackgroundPushTests {
    static let family = UUID()
    static let johnny = UUID(), emma = UUID()
    static let parent = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .parent, status: .active)
    static let ipad = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .child, status: .active, memberID: johnny)
    static let mac = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .child, status: .active, memberID: johnny)
    static let sister = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .child, status: .active, memberID: emma)
    static let waiting = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .child, status: .awaitingConfirmation)
    static let all = [parent, ipad, mac, sister, waiting]

    @Test func aParentsChangeToAChildsZoneWakesThatChildAndOtherParentsOnly() {
        let zone = Device.zoneName(forChild: Self.ipad.deviceID)
        let targets = BackgroundPush.targets(of: [.zone(zone, of: Self.family)], registered: Self.all, writer: Self.parent.deviceID)
        #expect(targets == [Self.ipad.deviceID: [zone]], "the writing parent knows; the sister and the Mac do not see that zone")
    }

    /// A transaction's plan: each writer left out of its own changes, a polling device left to
    /// its poll, and every new alert to each active parent device, polling or not.
    @Test func aTransactionsPlanLeavesWritersAndPollsOutAndTellsParentsOfAlerts() {
        let ipadZone = Device.zoneName(forChild: Self.ipad.deviceID), macZone = Device.zoneName(forChild: Self.mac.deviceID)
        let plan = BackgroundPush.plan(
            changes: [(Self.parent.deviceID, .zone(ipadZone, of: Self.family)), (Self.ipad.deviceID, .zone("family", of: Self.family)), (nil, .zone(macZone, of: Self.family))],
            registered: Self.all.map { ($0, polling: $0.deviceID == Self.mac.deviceID) }
        )
        #expect(plan.background[Self.ipad.deviceID] == [ipadZone], "its own write to the family zone does not wake it")
        #expect(plan.background[Self.parent.deviceID] == ["family", macZone], "its own write does not wake it; the others do")
        #expect(plan.background[Self.mac.deviceID] == nil, "it holds a poll")
        #expect(plan.background[Self.sister.deviceID] == ["family"])
        let pollingParent = BackgroundPush.plan(changes: [], registered: [(Self.parent, polling: true), (Self.ipad, polling: false)])
        #expect(pollingParent.alertRecipients == [Self.parent.deviceID] && pollingParent.background.isEmpty)
    }

    @Test func aMembersZoneWakesEveryDeviceOfTheMemberAndTheFamilyZoneEveryone() {
        let member = Member.zoneName(of: Self.johnny)
        let targets = BackgroundPush.targets(of: [.zone(member, of: Self.family), .zone("family", of: Self.family)], registered: Self.all, writer: nil)
        #expect(targets[Self.ipad.deviceID] == ["family", member] && targets[Self.mac.deviceID] == ["family", member])
        #expect(targets[Self.sister.deviceID] == ["family"] && targets[Self.parent.deviceID] == ["family", member])
        #expect(targets[Self.waiting.deviceID] == nil, "a device awaiting confirmation gets no push")
    }

    @Test func aChildsUploadWakesItsParentsNotItself() {
        let zone = Device.zoneName(forChild: Self.ipad.deviceID)
        let targets = BackgroundPush.targets(of: [.zone(zone, of: Self.family)], registered: Self.all, writer: Self.ipad.deviceID)
        #expect(targets == [Self.parent.deviceID: [zone]])
    }

    @Test func anotherFamilysChangeWakesNobody() {
        #expect(BackgroundPush.targets(of: [.zone("family", of: UUID())], registered: Self.all, writer: nil).isEmpty)
    }

    @Test func aDeviceChangeIsAPushWithNoZones() {
        let targets = BackgroundPush.targets(of: [.device(Self.mac.deviceID, of: Self.family)], registered: Self.all, writer: Self.parent.deviceID)
        #expect(targets == [Self.mac.deviceID: []])
    }

    @Test func pushesToADeviceAreAtLeastTheIntervalApart() {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(BackgroundPush.notBefore(now: now, lastSent: nil) == now)
        #expect(BackgroundPush.notBefore(now: now, lastSent: now.addingTimeInterval(-10)) == now.addingTimeInterval(20))
        #expect(BackgroundPush.notBefore(now: now, lastSent: now.addingTimeInterval(-45)) == now)
        #expect(BackgroundPush.payload(zones: ["family"]) == ["aps": .object(["content-available": .number(1)]), "familysync": .object(["zones": .array([.string("family")])])])
    }
}
