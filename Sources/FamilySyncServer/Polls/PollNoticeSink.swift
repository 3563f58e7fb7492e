import FamilySyncCore
import FamilySyncPostgres
import Prometheus

/// Hands the listener's notices to the polls and to the credential cache, and its state to the metrics.
package struct PollNoticeSink: ChangeNoticeSink {
    let hub: PollHub
    let metrics: PollMetrics
    let knownDevices: KnownDevices

    package init(hub: PollHub, metrics: PollMetrics, knownDevices: KnownDevices) {
        self.hub = hub
        self.metrics = metrics
        self.knownDevices = knownDevices
    }

    package func deliver(_ notice: ChangeNotice) {
        // The cache first: a poll woken by a revocation must not find its device still trusted.
        knownDevices.invalidate(CollectionOfOne(notice))
        hub.deliver(notice)
    }

    package func listenerDidConnect() {
        knownDevices.listenerDidConnect()
        metrics.listenerConnected.set(1.0)
        metrics.listenerConnects.increment()
        hub.wakeAll()
    }

    package func listenerDidDisconnect() {
        knownDevices.listenerDidDisconnect()
        metrics.listenerConnected.set(0.0)
    }
}
