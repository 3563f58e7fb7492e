import FamilySyncCore
import FamilySyncPostgres
import Prometheus

/// The fleet's tracking health on `/metrics` (PROTOCOL §10), for an app maker to watch the seed's
/// targets across installs: stale in under 2 % of checks, failures under 1 % of events.
package struct HealthMetrics: Sendable {
    /// Devices with health by status now, across the database (the stale detector sets it).
    let devices: [TrackingStatus: Gauge]
    /// The time between a device's heartbeats as this instance received them.
    let heartbeatGap: ValueHistogram
    let missedNotifications: Counter
    let sequenceResets: Counter
    package let trackingAlerts: Counter
    private let registry: PrometheusCollectorRegistry

    package init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        devices = Dictionary(uniqueKeysWithValues: [TrackingStatus.healthy, .stale, .inactive].map { status in
            (status, registry.makeGauge(name: "familysync_devices_by_health", labels: [("status", status.rawValue)], help: "Devices that report health, by status now."))
        })
        heartbeatGap = registry.makeValueHistogram(
            name: "familysync_heartbeat_gap_seconds", buckets: [15, 30, 45, 60, 90, 120, 180, 300, 600, 1800, 3600, 21_600, 86_400],
            help: "Seconds between a device's consecutive heartbeats."
        )
        missedNotifications = registry.makeCounter(name: "familysync_missed_notifications_total", help: "Notifications devices' sequence numbers skipped.")
        sequenceResets = registry.makeCounter(name: "familysync_sequence_resets_total", help: "Restarts of devices' notification sequences (extension restarts).")
        trackingAlerts = registry.makeCounter(name: "familysync_tracking_alerts_total", help: "Tracking alerts made (heartbeat gaps past 15 minutes in a day).")
        // Every action and outcome at zero from the start, so that the failure-rate rules see
        // the series before the first event.
        for action in ExtensionError.actions.sorted() + ["custom"] {
            for success in [true, false] { _ = eventCounter(action: action, success: success) }
        }
    }

    /// Extension errors by action (`x-…` ones together as `custom`, to bound the labels) and outcome.
    func error(_ error: ExtensionError) {
        eventCounter(action: ExtensionError.actions.contains(error.action) ? error.action : "custom", success: error.success).increment()
    }

    private func eventCounter(action: String, success: Bool) -> Counter {
        registry.makeCounter(
            name: "familysync_extension_events_total", labels: [("action", action), ("outcome", success ? "success" : "failure")],
            help: "Events of devices' monitoring extensions reported in their error logs, by action and outcome."
        )
    }

    func record(_ reported: PostgresHealthIntake.Reported) {
        if let gap = reported.sinceLastHeartbeat { heartbeatGap.record(gap) }
        if reported.missedNotifications > 0 { missedNotifications.increment(by: Int64(reported.missedNotifications)) }
        if reported.sequenceReset { sequenceResets.increment() }
        reported.newErrors.forEach(error)
        if !reported.alerts.isEmpty { trackingAlerts.increment(by: Int64(reported.alerts.count)) }
    }

    package func set(_ counts: [TrackingStatus: Int]) {
        for (status, gauge) in devices { gauge.set(Double(counts[status] ?? 0)) }
    }
}
