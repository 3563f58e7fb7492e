/// The light a parent sees for a device's tracking (§10) on the dashboard: red only for a device
/// that went quiet (stale); amber for one that reports but had trouble today (an extension error,
/// a missed notification, a stretch without heartbeats); grey for one that never reported or has
/// monitoring off (nothing is known to be broken); green otherwise.
public enum TrackingLight: String, Sendable, CaseIterable {
    case healthy, degraded, stale, unknown

    public static func of(status: TrackingStatus, errorsToday: Int, missedNotifications: Int, heartbeatGapsToday: Int) -> TrackingLight {
        switch status {
        case .stale: .stale
        case .unknown, .inactive: .unknown
        case .healthy: errorsToday > 0 || missedNotifications > 0 || heartbeatGapsToday > 0 ? .degraded : .healthy
        }
    }
}
