import FamilySyncCore
import Foundation
import Testing

/// Which reads the audit log counts (§15.4): a parent's successful reads of a member's or a child's
/// data, per UTC day.
@Suite struct AuditReadsKeyTests {
    static let family = UUID(), member = UUID()
    static let parent = AuthenticatedDevice(familyID: family, deviceID: UUID(), role: .parent, status: .active, memberID: member)
    static let now = Instant.parse("2026-11-27T23:30:00Z")!

    @Test func onlyAParentsSuccessfulCountedReads() throws {
        let route = "GET /v1/devices/{id}/usage"
        let key = try #require(AuditReadsKey(route: route, reader: Self.parent, status: 200, at: Self.now))
        #expect(key == AuditReadsKey(familyID: Self.family, date: "2026-11-27", readerMemberID: Self.member, route: route))
        #expect(AuditReadsKey(route: route, reader: Self.parent, status: 404, at: Self.now) == nil)
        #expect(AuditReadsKey(route: "GET /v1/devices", reader: Self.parent, status: 200, at: Self.now) == nil)
        let child = AuthenticatedDevice(familyID: Self.family, deviceID: UUID(), role: .child, status: .active, memberID: UUID())
        #expect(AuditReadsKey(route: route, reader: child, status: 200, at: Self.now) == nil)
        let unconfirmed = AuthenticatedDevice(familyID: Self.family, deviceID: UUID(), role: .parent, status: .active)
        #expect(AuditReadsKey(route: route, reader: unconfirmed, status: 200, at: Self.now) == nil)
    }
}
