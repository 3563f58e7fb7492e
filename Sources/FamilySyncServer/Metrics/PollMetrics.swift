import FamilySyncCore
import FamilySyncPostgres
import Prometheus

/// The long-poll figures on `/metrics`.
struct PollMetrics: Sendable {
    /// Polls held now.
    let active: Gauge
    /// From a change notice reaching this instance to the woken poll's answer (its database read
    /// included). The time from the writer's commit to the notice is PostgreSQL's; the benchmark
    /// measures the whole path.
    let wakeLatency: DurationHistogram
    /// 1 while the change listener is subscribed.
    let listenerConnected: Gauge
    let listenerConnects: Counter

    init(registry: PrometheusCollectorRegistry) {
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

/// Hands the listener's notices to the polls and to the credential cache, and its state to the metrics.
struct PollNoticeSink: ChangeNoticeSink {
    let hub: PollHub
    let metrics: PollMetrics
    let knownDevices: KnownDevices

    func deliver(_ notice: ChangeNotice) {
        // The cache first: a poll woken by a revocation must not find its device still trusted.
        knownDevices.invalidate(CollectionOfOne(notice))
        hub.deliver(notice)
    }

    func listenerDidConnect() {
        knownDevices.listenerDidConnect()
        metrics.listenerConnected.set(1.0)
        metrics.listenerConnects.increment()
        hub.wakeAll()
    }

    func listenerDidDisconnect() {
        knownDevices.listenerDidDisconnect()
        metrics.listenerConnected.set(0.0)
    }
}

/// This instance's long-poll machinery: the held polls and their figures.
struct LongPolling: Sendable {
    let hub: PollHub
    let metrics: PollMetrics

    init(registry: PrometheusCollectorRegistry) {
        let metrics = PollMetrics(registry: registry)
        self.metrics = metrics
        hub = PollHub { delta in metrics.active.increment(by: Double(delta)) }
    }

    func sink(_ knownDevices: KnownDevices) -> PollNoticeSink { PollNoticeSink(hub: hub, metrics: metrics, knownDevices: knownDevices) }
}
