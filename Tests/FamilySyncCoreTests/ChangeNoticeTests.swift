import FamilySyncCore
import Foundation
import Testing

@Suite struct ChangeNoticeTests {
    static let family = UUID()
    static let child = UUID()

    @Test(arguments: [
        ChangeNotice.zone("child-\(child.lowercased)", of: family), .zone("family", of: family), .zone("x|y", of: family),
        .device(child, of: family), .family(family),
    ])
    func payloadsRoundTrip(_ notice: ChangeNotice) {
        #expect(ChangeNotice(payload: notice.payload) == notice)
        #expect(notice.payload.utf8.count < 8000)
    }

    @Test(arguments: ["", "nonsense", "\(family.lowercased)", "\(family.lowercased)|zone|", "\(family.lowercased)|device|42", "\(family.lowercased)|family|x", "x|family", "\(family.lowercased)|record|a"])
    func malformedPayloadsAreNil(_ payload: String) {
        #expect(ChangeNotice(payload: payload) == nil)
    }

    /// Who a notice concerns is who could see the change (docs/access.md).
    @Test func aNoticeConcernsThoseWhoCanSeeTheChange() {
        let parent = AuthenticatedDevice(familyID: Self.family, deviceID: UUID(), role: .parent, status: .active)
        let child = AuthenticatedDevice(familyID: Self.family, deviceID: Self.child, role: .child, status: .active)
        let sibling = AuthenticatedDevice(familyID: Self.family, deviceID: UUID(), role: .child, status: .active)
        let awaiting = AuthenticatedDevice(familyID: Self.family, deviceID: UUID(), role: .child, status: .awaitingConfirmation)
        let stranger = AuthenticatedDevice(familyID: UUID(), deviceID: UUID(), role: .parent, status: .active)
        let ownZone = ChangeNotice.zone(Device.zoneName(forChild: Self.child), of: Self.family)
        let cases: [(ChangeNotice, [(AuthenticatedDevice, Bool)])] = [
            (ownZone, [(parent, true), (child, true), (sibling, false), (awaiting, false), (stranger, false)]),
            (.zone("family", of: Self.family), [(parent, true), (child, true), (sibling, true), (awaiting, false), (stranger, false)]),
            (.zone("extra", of: Self.family), [(parent, true), (child, false), (sibling, false), (awaiting, false), (stranger, false)]),
            (.device(Self.child, of: Self.family), [(parent, true), (child, true), (sibling, false), (awaiting, false), (stranger, false)]),
            (.device(awaiting.deviceID, of: Self.family), [(parent, true), (child, false), (sibling, false), (awaiting, true), (stranger, false)]),
            (.family(Self.family), [(parent, true), (child, true), (sibling, true), (awaiting, true), (stranger, false)]),
        ]
        for (notice, expected) in cases {
            for (device, concerned) in expected {
                #expect(notice.concerns(device) == concerned, "\(notice) for \(device)")
            }
        }
    }

    @Test(arguments: [("0", 0), ("30", 30_000), ("60", 60_000), ("0.25", 250), ("1e1", 10_000)])
    func timeoutsWithinRange(_ text: String, _ milliseconds: Int) throws {
        #expect(try LongPollRules.timeout(from: text) == .milliseconds(milliseconds))
    }

    @Test func theDefaultTimeoutIs30Seconds() throws {
        #expect(try LongPollRules.timeout(from: nil) == .seconds(30))
    }
}
