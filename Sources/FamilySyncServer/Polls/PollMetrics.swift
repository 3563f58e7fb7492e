import FamilySyncCore
import FamilySyncPostgres
import Prometheus

/// The long-poll figures on `/metrics`.
package struct PollMetrics: Sendable {
    /// Polls held now.
    let active: Gauge
    /// From a change notice reaching this instance to the woken poll's answer (its database read
    /// included). The time from the writer's commit to the notice is PostgreSQL's; the benchmark
    /// measures the whole path.
    let wakeLatency: DurationHistogram
    /// 1 while the change listener is subscribed.
    let listenerConnected: Gauge
    let listenerConnects: Counter

    package init(registry: PrometheusCollectorRegistry) {
        active = registry.makeGauge(name: "familysync_polls_active", help: "Long polls held by this instance.")
        wakeLatency = registry.makeDurationHistogram(
            name: "familysync_poll_wake_seconds",
            buckets: [.microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                      .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5)],
            help: "From a change notice reaching the instance to the woken poll's answer."
        )
        listenerConnected = registry.makeGauge(name: "familysync_change_listener_connected", help: "1 while the LISTEN connection is subscribed.")
        listenerConnects = registry.makeCounter(name: "familysync_change_listener_connects_total", help: "Subscriptions of the LISTEN connection, reconnections included.")
    }
}
