import Foundation

/// What a device shields at an instant (PROTOCOL §11, `GET /v1/devices/{id}/shield-state`), from
/// its member's schedules in the device's time zone and the apps blocked by configuration and
/// commands. Pure: the store reads the records, this decides.
public struct ShieldState: Sendable, Equatable {
    public struct ActiveSchedule: Sendable, Equatable {
        public var scheduleID: String
        public var name: String
        /// When this occurrence ends.
        public var until: Date

        public init(scheduleID: String, name: String, until: Date) {
            self.scheduleID = scheduleID
            self.name = name
            self.until = until
        }
    }

    /// What `allowOnly` schedules leave open: everything else is shielded. With several running at
    /// once an app must be allowed by each.
    public struct Allowed: Sendable, Equatable {
        public var applications: [String]
        public var categories: [CategoryID]

        public init(applications: [String], categories: [CategoryID]) {
            self.applications = applications
            self.categories = categories
        }
    }

    public var at: Date
    /// Shielded by `shield` schedules.
    public var applications: [String]
    public var categories: [CategoryID]
    /// Nil unless an `allowOnly` schedule runs.
    public var allowOnly: Allowed?
    public var activeSchedules: [ActiveSchedule]
    /// Blocked outside schedules (configuration and commands), as given.
    public var blockedApps: [String]
    /// The next instant a schedule starts or ends (within a week), nil when none will.
    public var nextChangeAt: Date?
    /// Schedules starting within their warning time.
    public var upcoming: [ActiveSchedule]

    /// The state at `instant`: schedules that are enabled now count, each occurrence over
    /// [start, end).
    public static func at(_ instant: Date, schedules: [Schedule], blockedApps: [String], timeZone: TimeZone) -> ShieldState {
        // Occurrences that may contain the instant started at most a day and a half before it;
        // the next change is looked for over the coming week.
        let from = instant.addingTimeInterval(-2 * 86_400), to = instant.addingTimeInterval(8 * 86_400)
        var state = ShieldState(
            at: instant, applications: [], categories: [], allowOnly: nil, activeSchedules: [], blockedApps: blockedApps.sorted(), nextChangeAt: nil, upcoming: []
        )
        var applications: Set<String> = [], categories: Set<CategoryID> = []
        var allowedApps: Set<String>?, allowedCategories: Set<CategoryID>?
        for schedule in schedules.sorted(by: { $0.scheduleID < $1.scheduleID }) where schedule.enabled {
            for occurrence in schedule.occurrences(from: from, to: to, in: timeZone) {
                for boundary in [occurrence.start, occurrence.end] where boundary > instant {
                    state.nextChangeAt = min(state.nextChangeAt ?? boundary, boundary)
                }
                if occurrence.start <= instant, instant < occurrence.end {
                    state.activeSchedules.append(ActiveSchedule(scheduleID: schedule.scheduleID, name: schedule.name, until: occurrence.end))
                    switch schedule.mode {
                    case .shield:
                        applications.formUnion(schedule.applications)
                        categories.formUnion(schedule.categories)
                    case .allowOnly:
                        allowedApps = allowedApps.map { $0.intersection(schedule.applications) } ?? Set(schedule.applications)
                        allowedCategories = allowedCategories.map { $0.intersection(schedule.categories) } ?? Set(schedule.categories)
                    }
                } else if occurrence.start > instant, occurrence.start.timeIntervalSince(instant) <= TimeInterval(schedule.warningMinutes * 60) {
                    state.upcoming.append(ActiveSchedule(scheduleID: schedule.scheduleID, name: schedule.name, until: occurrence.end))
                }
            }
        }
        state.applications = applications.sorted()
        state.categories = categories.sorted()
        if let allowedApps, let allowedCategories {
            state.allowOnly = Allowed(applications: allowedApps.sorted(), categories: allowedCategories.sorted())
        }
        return state
    }
}
