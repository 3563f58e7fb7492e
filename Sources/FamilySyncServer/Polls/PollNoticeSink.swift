import FamilySyncCore
import FamilySyncPostgres
import Prometheus

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
