import FamilySyncCore
import Foundation

/// `GET /v1/fleet/tracking-report?week=` (PROTOCOL §10.1): the operator's weekly tracking report.
public struct TrackingReportBody: Codable, Sendable, Equatable {
    public struct Targets: Codable, Sendable, Equatable {
        public var staleRate: Double
        public var failureRate: Double
        public var failureRateCritical: Double
        public var averageHeartbeatGapSeconds: Double
    }

    /// Intervals between heartbeats while monitoring, by length.
    public struct HeartbeatGaps: Codable, Sendable, Equatable {
        public var upTo60s: Int
        public var upTo120s: Int
        public var upTo300s: Int
        public var upTo900s: Int
        public var upTo3600s: Int
        public var longer: Int

        public init(upTo60s: Int, upTo120s: Int, upTo300s: Int, upTo900s: Int, upTo3600s: Int, longer: Int) {
            (self.upTo60s, self.upTo120s, self.upTo300s, self.upTo900s, self.upTo3600s, self.longer) = (upTo60s, upTo120s, upTo300s, upTo900s, upTo3600s, longer)
        }
    }

    public struct Figures: Codable, Sendable, Equatable {
        public var devices: Int
        public var heartbeats: Int
        public var monitoredHours: Double
        /// Absent with nothing to measure (no monitored time, no event, no interval).
        public var staleRate: Double?
        public var events: Int
        public var failures: Int
        public var failureRate: Double?
        public var averageHeartbeatGapSeconds: Double?
        public var heartbeatGaps: HeartbeatGaps
        public var missedNotifications: Int
        public var sequenceResets: Int
        /// `staleRate`, `failureRate`, `averageHeartbeatGapSeconds`: the targets these miss.
        public var missedTargets: [String]
    }

    public struct OSVersionCount: Codable, Sendable, Equatable {
        public var osVersion: String?
        public var devices: Int

        public init(osVersion: String?, devices: Int) {
            self.osVersion = osVersion
            self.devices = devices
        }
    }

    public struct Group: Codable, Sendable, Equatable {
        public var platform: String
        public var appVersion: String?
        public var figures: Figures
        public var osVersions: [OSVersionCount]
    }

    /// `2026-W48`, and its first and last dates.
    public var week: String
    public var from: String
    public var to: String
    public var targets: Targets
    public var total: Figures
    public var groups: [Group]
}

extension TrackingReportBody {
    public init(_ report: TrackingReport) {
        func figures(_ figures: TrackingReport.Figures) -> Figures {
            let gaps = figures.tally.gaps
            return Figures(
                devices: figures.devices, heartbeats: figures.tally.heartbeats, monitoredHours: (figures.tally.monitoredSeconds / 36).rounded() / 100,
                staleRate: figures.staleRate, events: figures.tally.events, failures: figures.tally.failures, failureRate: figures.failureRate,
                averageHeartbeatGapSeconds: figures.averageHeartbeatGapSeconds.map { ($0 * 10).rounded() / 10 },
                heartbeatGaps: HeartbeatGaps(upTo60s: gaps[0], upTo120s: gaps[1], upTo300s: gaps[2], upTo900s: gaps[3], upTo3600s: gaps[4], longer: gaps[5]),
                missedNotifications: figures.missedNotifications, sequenceResets: figures.sequenceResets, missedTargets: figures.missed(report.targets)
            )
        }
        let dates = report.week.dates
        self.init(
            week: report.week.description, from: dates.first ?? "", to: dates.last ?? "",
            targets: Targets(
                staleRate: report.targets.staleRate, failureRate: report.targets.failureRate, failureRateCritical: report.targets.failureRateCritical,
                averageHeartbeatGapSeconds: report.targets.averageHeartbeatGapSeconds
            ),
            total: figures(report.total),
            groups: report.groups.map { group in
                Group(
                    platform: group.platform, appVersion: group.appVersion, figures: figures(group.figures),
                    osVersions: group.osVersions.map { OSVersionCount(osVersion: $0.osVersion, devices: $0.devices) }
                )
            }
        )
    }
}
