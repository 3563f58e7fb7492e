import Foundation

extension HeartbeatRules {
    /// When a report is a quiet heartbeat: one that changes nothing a parent sees, so that it only
    /// moves the heartbeat on and answers from the `health` record. The store tests a stored state
    /// against these bounds in its one statement (the hot path); `admits` is the same test, and
    /// whatever it admits the full decision would store the same without writing the record.
    public struct QuietHeartbeat: Sendable, Equatable {
        public var monitoringActive: Bool
        /// The status the state must have: healthy while monitoring, inactive without.
        public var status: TrackingStatus
        /// The heartbeat before at or after this (no gap closes) and at most `now`.
        public var lastHeartbeatAfter: Date
        public var now: Date
        /// The record written after this (it needs no refresh)…
        public var recordWrittenAfter: Date
        /// …of a day that ends after `now`.
        public var recordDayEndAfter: Date
        /// The report's number: the stored one, or the next, skips none and restarts nothing.
        public var sequence: Int64?
        public var memoryUsageMB: Double?
        public var appVersion: String?
        public var osVersion: String?

        /// A report with no errors (errors always take the full way).
        public init(_ report: HealthReport, now: Date) {
            monitoringActive = report.monitoringActive
            status = report.monitoringActive ? .healthy : .inactive
            lastHeartbeatAfter = now.addingTimeInterval(-heartbeatGap)
            self.now = now
            recordWrittenAfter = now.addingTimeInterval(-recordRefresh)
            recordDayEndAfter = now
            sequence = report.notificationSequence
            memoryUsageMB = report.memoryUsageMB
            appVersion = report.appVersion
            osVersion = report.osVersion
        }

        public func admits(_ state: HeartbeatState) -> Bool {
            state.monitoringActive == monitoringActive && state.status == status
                && state.lastHeartbeatAt >= lastHeartbeatAfter && state.lastHeartbeatAt <= now
                && state.recordWrittenAt > recordWrittenAfter && state.recordDayEnd > recordDayEndAfter
                && Self.continues(state.lastSequence, with: sequence)
        }

        /// No number, or the same number or the next: as a difference, as the statement has it (a
        /// number kept from before §10's range may be the largest there is).
        static func continues(_ last: Int64?, with next: Int64?) -> Bool {
            guard let last, let next else { return true }
            let (difference, overflow) = next.subtractingReportingOverflow(last)
            return !overflow && (0...1).contains(difference)
        }

        /// The state after it: the heartbeat moved on, memory and number kept where it has none.
        public func updating(_ state: HeartbeatState) -> HeartbeatState {
            var state = state
            state.lastHeartbeatAt = now
            state.memoryUsageMB = memoryUsageMB ?? state.memoryUsageMB
            state.lastSequence = sequence ?? state.lastSequence
            return state
        }

        /// The answer: the `health` record as of now, with the memory stored.
        public func answer(from record: DeviceHealth, memoryUsageMB: Double?) -> DeviceHealth {
            var health = record
            health.lastHeartbeatAt = now
            health.heartbeatGapSeconds = 0
            health.memoryUsageMB = memoryUsageMB
            health.asOf = now
            return health
        }
    }
}
