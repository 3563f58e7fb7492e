import Foundation

/// One member's day across their devices (PROTOCOL §8): the sum of the devices' daily summaries,
/// each device's day in its own time zone. Two screens used at once count twice, as Screen Time
/// counts them. Pure.
public struct MemberDay: Sendable, Equatable {
    public struct PlatformSeconds: Sendable, Equatable {
        public var platform: DevicePlatform
        public var seconds: Int
    }

    public struct DeviceSeconds: Sendable, Equatable {
        public var deviceID: UUID
        public var platform: DevicePlatform
        public var seconds: Int
    }

    public typealias CategoryTotal = DailySummary.CategoryTotal

    /// A device of the member as the view reads it: its platform, and its summary of the day if
    /// it used anything.
    public struct DeviceDay: Sendable {
        public var deviceID: UUID
        public var platform: DevicePlatform
        public var summary: DailySummary?

        public init(deviceID: UUID, platform: DevicePlatform, summary: DailySummary?) {
            self.deviceID = deviceID
            self.platform = platform
            self.summary = summary
        }
    }

    public var date: String
    public var totalLearningSeconds = 0
    public var totalRewardSeconds = 0
    public var totalPointsEarned = 0
    public var totalSeconds = 0
    public var totalPickups = 0
    /// Every platform among the member's devices, zeros included, most used first.
    public var byPlatform: [PlatformSeconds] = []
    /// Every device of the member, zeros included, most used first.
    public var byDevice: [DeviceSeconds] = []
    /// Learning and reward, zeros included, and every other category used; most used first.
    public var byCategory: [CategoryTotal] = []
    /// Every app used on any of the devices, most used first.
    public var byApp: [DailySummary.App] = []


    /// Seconds by category, what budgets count (§9.3).
    public var secondsByCategory: [CategoryID: Int] {
        Dictionary(byCategory.map { ($0.category, $0.seconds) }, uniquingKeysWith: +)
    }

    public init(date: String, devices: [DeviceDay]) {
        self.date = date
        var platforms: [DevicePlatform: Int] = [:]
        var period = UsageReport.Period(start: date, end: date)
        for device in devices {
            let seconds = device.summary?.totalSeconds ?? 0
            platforms[device.platform, default: 0] += seconds
            byDevice.append(DeviceSeconds(deviceID: device.deviceID, platform: device.platform, seconds: seconds))
            if let summary = device.summary { period.add(summary) }
        }
        totalLearningSeconds = period.totalLearningSeconds
        totalRewardSeconds = period.totalRewardSeconds
        totalPointsEarned = period.totalPointsEarned
        totalSeconds = period.totalSeconds
        byApp = period.apps
        totalPickups = byApp.reduce(0) { $0 + $1.pickups }
        byPlatform = platforms.map { PlatformSeconds(platform: $0.key, seconds: $0.value) }
            .sorted { ($1.seconds, $0.platform.rawValue) < ($0.seconds, $1.platform.rawValue) }
        byDevice.sort { ($1.seconds, $0.deviceID.lowercased) < ($0.seconds, $1.deviceID.lowercased) }
        var categories = DailySummary.byCategory(byApp)
        for kept in [CategoryID.learning, .reward] where !categories.contains(where: { $0.category == kept }) {
            categories.append(CategoryTotal(category: kept, seconds: 0, points: 0))
        }
        byCategory = categories.sorted { ($1.seconds, $0.category) < ($0.seconds, $1.category) }
    }
}
