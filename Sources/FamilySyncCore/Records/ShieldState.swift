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
    /// Grants open now (§16): their targets are not shielded until their end.
    public var openGrants: [OpenGrant] = []

    /// A parent's grant in force: what it opens and until when.
    public struct OpenGrant: Sendable, Equatable {
        public var requestID: UUID
        public var target: TimeRequestTarget
        public var until: Date

        public init(requestID: UUID, target: TimeRequestTarget, until: Date) {
            self.requestID = requestID
            self.target = target
            self.until = until
        }
    }

    /// The state at `instant`: schedules that are enabled now count, each occurrence over
    /// [start, end). `requests`: the member's requests for more time; a grant open at `instant`
    /// lifts its schedule, unshields its app or category (and lets it through an `allowOnly`
    /// schedule), and ends at its `until`, which is then the next change at the latest.
    public static func at(_ instant: Date, schedules: [Schedule], blockedApps: [String], timeZone: TimeZone, requests: [TimeRequest] = []) -> ShieldState {
        let grants = requests.filter { $0.isOpen(at: instant) }.sorted { ($0.until!, $0.requestID.uuidString) < ($1.until!, $1.requestID.uuidString) }
        var liftedSchedules: Set<String> = [], openApps: Set<String> = [], openCategories: Set<CategoryID> = []
        for grant in grants {
            switch grant.target {
            case .schedule(let scheduleID): liftedSchedules.insert(scheduleID)
            case .app(let logicalID): openApps.insert(logicalID)
            case .category(let category): openCategories.insert(category)
            case .allScreenTime: break
            }
        }
        // Occurrences that may contain the instant started at most a day and a half before it;
        // the next change is looked for over the coming week.
        let from = instant.addingTimeInterval(-2 * 86_400), to = instant.addingTimeInterval(8 * 86_400)
        var state = ShieldState(
            at: instant, applications: [], categories: [], allowOnly: nil, activeSchedules: [],
            blockedApps: blockedApps.filter { !openApps.contains($0) }.sorted(), nextChangeAt: grants.first?.until, upcoming: [],
            openGrants: grants.map { OpenGrant(requestID: $0.requestID, target: $0.target, until: $0.until!) }
        )
        var applications: Set<String> = [], categories: Set<CategoryID> = []
        var allowedApps: Set<String>?, allowedCategories: Set<CategoryID>?
        for schedule in schedules.sorted(by: { $0.scheduleID < $1.scheduleID }) where schedule.enabled {
            for occurrence in schedule.occurrences(from: from, to: to, in: timeZone) {
                for boundary in [occurrence.start, occurrence.end] where boundary > instant {
                    state.nextChangeAt = min(state.nextChangeAt ?? boundary, boundary)
                }
                if occurrence.start <= instant, instant < occurrence.end {
                    guard !liftedSchedules.contains(schedule.scheduleID) else { continue }
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
        state.applications = applications.subtracting(openApps).sorted()
        state.categories = categories.subtracting(openCategories).sorted()
        if let allowedApps, let allowedCategories {
            state.allowOnly = Allowed(applications: allowedApps.union(openApps).sorted(), categories: allowedCategories.union(openCategories).sorted())
        }
        return state
    }
}
