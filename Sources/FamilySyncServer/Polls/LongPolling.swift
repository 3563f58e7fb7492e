import FamilySyncCore
import FamilySyncPostgres
import Prometheus

/// This instance's long-poll machinery: the held polls and their figures.
package struct LongPolling: Sendable {
    package let hub: PollHub
    package let metrics: PollMetrics

    package init(registry: PrometheusCollectorRegistry) {
        let metrics = PollMetrics(registry: registry)
        self.metrics = metrics
        hub = PollHub { delta in metrics.active.increment(by: Double(delta)) }
    }

    package func sink(_ knownDevices: KnownDevices) -> PollNoticeSink { PollNoticeSink(hub: hub, metrics: metrics, knownDevices: knownDevices) }
}
