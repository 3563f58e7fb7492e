import FamilySyncCore
import Testing

@Suite struct TrackingLightTests {
    @Test func redOnlyForStaleAmberForTroubleGreyForNothingKnown() {
        #expect(TrackingLight.of(status: .stale, errorsToday: 0, missedNotifications: 0, heartbeatGapsToday: 0) == .stale)
        #expect(TrackingLight.of(status: .unknown, errorsToday: 3, missedNotifications: 0, heartbeatGapsToday: 0) == .unknown)
        #expect(TrackingLight.of(status: .inactive, errorsToday: 0, missedNotifications: 0, heartbeatGapsToday: 0) == .unknown)
        #expect(TrackingLight.of(status: .healthy, errorsToday: 0, missedNotifications: 0, heartbeatGapsToday: 0) == .healthy)
        #expect(TrackingLight.of(status: .healthy, errorsToday: 1, missedNotifications: 0, heartbeatGapsToday: 0) == .degraded)
        #expect(TrackingLight.of(status: .healthy, errorsToday: 0, missedNotifications: 2, heartbeatGapsToday: 0) == .degraded)
        #expect(TrackingLight.of(status: .healthy, errorsToday: 0, missedNotifications: 0, heartbeatGapsToday: 1) == .degraded)
    }
}
