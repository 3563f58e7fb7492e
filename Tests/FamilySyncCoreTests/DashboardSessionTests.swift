import FamilySyncCore
import Foundation
import Testing

@Suite struct DashboardSessionTests {
    @Test func aTokenParsesAndADeviceCredentialIsNotOne() throws {
        let session = DashboardSession.generate(familyID: UUID())
        #expect(session.token.hasPrefix("fws1.") && DashboardSession(parsing: session.token) == session)
        let credential = DeviceCredential.generate(familyID: session.familyID, deviceID: UUID())
        #expect(DashboardSession(parsing: credential.token) == nil)
        #expect(DeviceCredential(parsing: session.token) == nil, "a session is no /v1 credential")
        #expect(DashboardSession(parsing: session.token + "x") == nil)
    }

    @Test func aSessionEndsIdleAfterAWeekAndWhateverAfterThirtyDays() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(DashboardSession.isLive(createdAt: start, lastSeenAt: start, at: start.addingTimeInterval(7 * 86_400 - 1)))
        #expect(!DashboardSession.isLive(createdAt: start, lastSeenAt: start, at: start.addingTimeInterval(7 * 86_400)))
        // Used every day, it still ends at 30 days.
        let yesterday = start.addingTimeInterval(29 * 86_400)
        #expect(DashboardSession.isLive(createdAt: start, lastSeenAt: yesterday, at: start.addingTimeInterval(30 * 86_400 - 1)))
        #expect(!DashboardSession.isLive(createdAt: start, lastSeenAt: yesterday, at: start.addingTimeInterval(30 * 86_400)))
        #expect(!DashboardSession.needsTouch(lastSeenAt: start, at: start.addingTimeInterval(3599)))
        #expect(DashboardSession.needsTouch(lastSeenAt: start, at: start.addingTimeInterval(3600)))
    }
}
