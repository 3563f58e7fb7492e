import FamilySyncCore
import Foundation
import Testing

/// An invitation's checks and whom a confirmed device joins (§3, §8).
@Suite struct PairingRulesTests {
    @Test func anInvitationsLifetimeAndWhomItIsFor() throws {
        #expect(try Pairing.checkInvitation(role: .child, childName: " Kim ", memberID: nil, ttlSeconds: nil) == (Pairing.defaultTTLSeconds, "Kim"))
        #expect(try Pairing.checkInvitation(role: .parent, childName: nil, memberID: nil, ttlSeconds: 60).ttl == 60)
        for ttl in [Pairing.ttlRange.lowerBound - 1, Pairing.ttlRange.upperBound + 1] {
            #expect(throws: FamilySyncError.self) { try Pairing.checkInvitation(role: .child, childName: nil, memberID: nil, ttlSeconds: ttl) }
        }
        #expect(throws: FamilySyncError.badRequest("A co-parent pairing has no child name.", field: "childName")) {
            try Pairing.checkInvitation(role: .parent, childName: "Kim", memberID: nil, ttlSeconds: nil)
        }
        #expect(throws: FamilySyncError.badRequest("Name the member (memberId) or a new child (childName), not both.", field: "childName")) {
            try Pairing.checkInvitation(role: .child, childName: "Kim", memberID: UUID(), ttlSeconds: nil)
        }
    }

    @Test func aConfirmedDeviceJoinsTheInvitedMemberOrANewOne() {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        func pairing(childName: String?, member: UUID?) -> Pairing {
            Pairing(
                id: UUID(), familyID: UUID(), role: .child, childName: childName, storedStatus: .accepted, createdBy: UUID(), deviceID: UUID(),
                verificationEmoji: nil, createdAt: now, expiresAt: now.addingTimeInterval(600), memberID: member
            )
        }
        let member = UUID()
        #expect(pairing(childName: nil, member: member).joining == .invited(member))
        #expect(pairing(childName: nil, member: member).joining.isExistingMember)
        #expect(pairing(childName: "Kim", member: nil).joining == .newMember(childName: "Kim"))
        #expect(pairing(childName: nil, member: nil).joining == .newMember(childName: nil))
        #expect(!pairing(childName: nil, member: nil).joining.isExistingMember)
    }
}
