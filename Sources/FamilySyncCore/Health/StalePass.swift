import Foundation

extension HeartbeatRules {
    /// The last heartbeat before which a monitoring device is stale at `now` (as `status` says).
    public static func staleBefore(_ now: Date) -> Date {
        now.addingTimeInterval(-staleAfter)
    }

    /// One pass of the stale detector at `now`: the cut-offs its statements compare against, and
    /// the same tests as pure predicates.
    public struct StalePass: Sendable, Equatable {
        public var now: Date
        /// Healthy devices heard from last before this turn stale.
        public var staleBefore: Date
        /// Stale devices heard from last before this have a gap open (it may pass 15 minutes today).
        public var openGapBefore: Date

        public init(now: Date) {
            self.now = now
            staleBefore = HeartbeatRules.staleBefore(now)
            openGapBefore = now.addingTimeInterval(-heartbeatGap)
        }

        /// A device judged healthy whose heartbeats stopped.
        public func turnsStale(_ state: HeartbeatState) -> Bool {
            state.status == .healthy && state.lastHeartbeatAt < staleBefore
        }

        /// A stale device, still active in its family, whose open gap may have passed the day's
        /// 15 minutes and that was not alerted for today already (`trackingAlertedUntil`: the end
        /// of the last day alerted).
        public func isDueTrackingCheck(_ state: HeartbeatState, deviceActive: Bool, trackingAlertedUntil: Date?) -> Bool {
            state.status == .stale && state.monitoringActive && state.lastHeartbeatAt < openGapBefore && deviceActive
                && trackingAlertedUntil.map { $0 <= now } ?? true
        }
    }
}
