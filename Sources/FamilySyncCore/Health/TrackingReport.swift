import Foundation

/// The operator's weekly tracking report (PROTOCOL §10.1): across every family, how tracking went
/// in one ISO week of the devices' local days, by platform and app version, against the
/// tracking seed's targets. It names no family, device or member.
public struct TrackingReport: Sendable, Equatable {
    /// The seed's targets: stale in under 2 % of checks, extension events failing under 1 % (its
    /// alert's "error rate > 5 %" the critical line), an average heartbeat gap of at most 3 minutes.
    public struct Targets: Sendable, Equatable {
        public var staleRate = 0.02
        public var failureRate = 0.01
        public var failureRateCritical = 0.05
        public var averageHeartbeatGapSeconds: Double = 180
        public init() {}
    }

    /// The figures of a set of devices: the whole fleet, a platform and app version, or those
    /// with one system version besides.
    public struct Figures: Sendable, Equatable {
        public var devices: Int
        public var tally: HealthTally
        public var missedNotifications: Int
        public var sequenceResets: Int

        public init(devices: Int, tally: HealthTally, missedNotifications: Int, sequenceResets: Int) {
            self.devices = devices
            self.tally = tally
            self.missedNotifications = missedNotifications
            self.sequenceResets = sequenceResets
        }

        /// The share of monitored time past the stale mark; nil without any.
        public var staleRate: Double? { tally.monitoredSeconds > 0 ? tally.staleSeconds / tally.monitoredSeconds : nil }
        /// The share of the extension's reported events that failed; nil without any.
        public var failureRate: Double? { tally.events > 0 ? Double(tally.failures) / Double(tally.events) : nil }
        /// Seconds between heartbeats while monitoring, on average; nil without an interval.
        public var averageHeartbeatGapSeconds: Double? {
            let intervals = tally.gaps.reduce(0, +)
            return intervals > 0 ? tally.monitoredSeconds / Double(intervals) : nil
        }

        /// The targets these figures miss, by name (`staleRate`, `failureRate`,
        /// `averageHeartbeatGapSeconds`); a figure with nothing to measure misses nothing.
        public func missed(_ targets: Targets) -> [String] {
            var missed: [String] = []
            if let rate = staleRate, rate >= targets.staleRate { missed.append("staleRate") }
            if let rate = failureRate, rate >= targets.failureRate { missed.append("failureRate") }
            if let gap = averageHeartbeatGapSeconds, gap > targets.averageHeartbeatGapSeconds { missed.append("averageHeartbeatGapSeconds") }
            return missed
        }
    }

    /// Devices of one system version (nil: named none).
    public struct SystemCount: Sendable, Equatable {
        public var osVersion: String?
        public var devices: Int
    }

    public struct Group: Sendable, Equatable {
        public var platform: String
        /// nil: devices that named none.
        public var appVersion: String?
        public var figures: Figures
        /// The same devices by system version, most devices first.
        public var osVersions: [SystemCount]
    }

    /// What the store reads: a platform, app version and system version's figures, or (with
    /// `osVersion` absent) a platform and app version's, or (with all absent) the fleet's. Device
    /// counts are of distinct devices at each level, so a device that upgraded counts once above.
    public struct Row: Sendable, Equatable {
        public enum Level: Sendable, Equatable { case fleet, app, system }
        public var level: Level
        public var platform: String?
        public var appVersion: String?
        public var osVersion: String?
        public var figures: Figures

        public init(level: Level, platform: String?, appVersion: String?, osVersion: String?, figures: Figures) {
            self.level = level
            self.platform = platform
            self.appVersion = appVersion
            self.osVersion = osVersion
            self.figures = figures
        }
    }

    public var week: ISOWeek
    public var targets: Targets
    public var total: Figures
    /// By platform, then app version (newest-looking last: ordered as versions, `2.10` after `2.9`).
    public var groups: [Group]

    public init(week: ISOWeek, targets: Targets = Targets(), rows: [Row]) {
        self.week = week
        self.targets = targets
        let empty = Figures(devices: 0, tally: HealthTally(), missedNotifications: 0, sequenceResets: 0)
        total = rows.first { $0.level == .fleet }?.figures ?? empty
        groups = rows.filter { $0.level == .app }.map { row in
            let systems = rows.filter { $0.level == .system && $0.platform == row.platform && $0.appVersion == row.appVersion }
                .sorted { ($0.figures.devices, $1.osVersion ?? "") > ($1.figures.devices, $0.osVersion ?? "") }
            return Group(
                platform: row.platform ?? "", appVersion: row.appVersion, figures: row.figures,
                osVersions: systems.map { SystemCount(osVersion: $0.osVersion, devices: $0.figures.devices) }
            )
        }.sorted { left, right in
            left.platform != right.platform
                ? left.platform < right.platform
                : (left.appVersion ?? "").compare(right.appVersion ?? "", options: .numeric) == .orderedAscending
        }
    }
}

extension TrackingReport {
    /// The report as text (`familysync fleet report`, `Accept: text/plain`): the fleet, then a
    /// line a group, each figure beside its target, `!` where one is missed.
    public var text: String {
        func percent(_ value: Double?) -> String { value.map { String(format: "%.2f %%", $0 * 100) } ?? "–" }
        func seconds(_ value: Double?) -> String { value.map { String(format: "%.0f s", $0) } ?? "–" }
        // Wide enough for the longest group's name (a version may have 64 characters).
        let width = max(28, groups.map { "\($0.platform) \($0.appVersion ?? "(no version)")".count + 1 }.max() ?? 0)
        func line(_ name: String, _ figures: Figures) -> String {
            let missed = Set(figures.missed(targets))
            func mark(_ key: String) -> String { missed.contains(key) ? "!" : " " }
            let columns = [
                name.padding(toLength: width, withPad: " ", startingAt: 0),
                String(figures.devices).leftPadded(8),
                (percent(figures.staleRate) + mark("staleRate")).leftPadded(10),
                (percent(figures.failureRate) + mark("failureRate")).leftPadded(10),
                (seconds(figures.averageHeartbeatGapSeconds) + mark("averageHeartbeatGapSeconds")).leftPadded(9),
                String(figures.missedNotifications).leftPadded(8),
                String(figures.sequenceResets).leftPadded(7),
            ]
            return columns.joined(separator: " ")
        }
        let dates = week.dates
        var lines = [
            "TRACKING REPORT \(week) (\(dates.first ?? "") to \(dates.last ?? ""), the devices' local days)",
            "Targets: stale under \(percent(targets.staleRate)) of monitored time, failures under \(percent(targets.failureRate)) of events"
                + " (critical at \(percent(targets.failureRateCritical))), average heartbeat gap at most \(seconds(targets.averageHeartbeatGapSeconds)).",
            "",
            ["", "devices", "stale", "failures", "avg gap", "missed", "resets"].enumerated().map { index, title in
                index == 0 ? title.padding(toLength: width, withPad: " ", startingAt: 0) : title.leftPadded([8, 10, 10, 9, 8, 7][index - 1])
            }.joined(separator: " "),
            line("all devices", total),
        ]
        for group in groups {
            lines.append(line("\(group.platform) \(group.appVersion ?? "(no version)")", group.figures))
        }
        let gaps = total.tally.gaps
        let labels = ["≤ 1 min", "1–2 min", "2–5 min", "5–15 min", "15–60 min", "> 1 h"]
        let intervals = max(1, gaps.reduce(0, +))
        lines.append("")
        lines.append("Heartbeat gaps (all devices): " + zip(labels, gaps).map { "\($0) \($1) (\(String(format: "%.1f", Double($1) * 100 / Double(intervals))) %)" }.joined(separator: ", "))
        let missedGroups = groups.filter { !$0.figures.missed(targets).isEmpty }.count
        lines.append(
            total.missed(targets).isEmpty && missedGroups == 0
                ? "Every target met."
                : "Targets missed (!): \(total.missed(targets).isEmpty ? "" : "the fleet, ")\(missedGroups) of \(groups.count) groups."
        )
        return lines.joined(separator: "\n") + "\n"
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
