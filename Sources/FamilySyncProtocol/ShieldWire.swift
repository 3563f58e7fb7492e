import FamilySyncCore
import Foundation

/// `GET /v1/devices/{id}/shield-state` (PROTOCOL §11): what a device shields at an instant.
public struct ShieldStateBody: Codable, Sendable, Equatable {
    public struct Shielded: Codable, Sendable, Equatable {
        public var applications: [String]
        public var categories: [String]
    }

    public struct ActiveSchedule: Codable, Sendable, Equatable {
        public var scheduleID: String
        public var name: String
        public var until: Date
    }

    public var at: Date
    /// Shielded by `shield` schedules running now.
    public var shielded: Shielded
    /// While an `allowOnly` schedule runs: all but these are shielded (null otherwise).
    public var allowOnly: Shielded?
    public var activeSchedules: [ActiveSchedule]
    /// Blocked outside schedules: configuration and executed block/unblock commands.
    public var blockedApps: [String]
    /// An executed `block` without apps: the whole device is blocked until an `unblock`.
    public var deviceBlocked: Bool
    /// The next start or end of a schedule within a week; null when none.
    public var nextChangeAt: Date?
    /// Schedules starting within their warning time.
    public var upcomingSchedules: [ActiveSchedule]

    public init(_ state: ShieldState, deviceBlocked: Bool) {
        at = state.at
        shielded = Shielded(applications: state.applications, categories: state.categories.map(\.rawValue))
        allowOnly = state.allowOnly.map { Shielded(applications: $0.applications, categories: $0.categories.map(\.rawValue)) }
        activeSchedules = state.activeSchedules.map { ActiveSchedule(scheduleID: $0.scheduleID, name: $0.name, until: $0.until) }
        blockedApps = state.blockedApps
        self.deviceBlocked = deviceBlocked
        nextChangeAt = state.nextChangeAt
        upcomingSchedules = state.upcoming.map { ActiveSchedule(scheduleID: $0.scheduleID, name: $0.name, until: $0.until) }
    }

    enum CodingKeys: String, CodingKey { case at, shielded, allowOnly, activeSchedules, blockedApps, deviceBlocked, nextChangeAt, upcomingSchedules }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(at, forKey: .at)
        try container.encode(shielded, forKey: .shielded)
        try container.encode(allowOnly, forKey: .allowOnly)
        try container.encode(activeSchedules, forKey: .activeSchedules)
        try container.encode(blockedApps, forKey: .blockedApps)
        try container.encode(deviceBlocked, forKey: .deviceBlocked)
        try container.encode(nextChangeAt, forKey: .nextChangeAt)
        try container.encode(upcomingSchedules, forKey: .upcomingSchedules)
    }
}
