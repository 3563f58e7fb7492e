import FamilySyncCore
import Prometheus

/// The push figures on `/metrics` (PROTOCOL §12).
package struct PushMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    /// Rows waiting in the outbox (every instance's), as last counted by this instance's sender.
    let outboxDepth: Gauge
    /// From the change's commit (its outbox row) to APNs's acceptance.
    let deliveryLatency: DurationHistogram

    package init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        outboxDepth = registry.makeGauge(name: "familysync_push_outbox_depth", help: "Pushes waiting in the outbox.")
        deliveryLatency = registry.makeDurationHistogram(
            name: "familysync_push_delivery_seconds",
            buckets: [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
                      .milliseconds(500), .seconds(1), .seconds(5), .seconds(30), .seconds(60), .seconds(300)],
            help: "From the commit of a push's change to its acceptance by APNs (or the webhook)."
        )
        // The kinds and the server's own reasons at zero from the start, so that rates and the
        // alert rules see the series before the first push (APNs's reasons appear as they come).
        for kind in PushDelivery.Kind.allCases { _ = sentCounter(kind) }
        for reason in ["polling", "unregistered"] { _ = skippedCounter(reason) }
        for reason in ["expired", "unreachable"] { _ = failureCounter(reason) }
    }

    func sent(_ kind: PushDelivery.Kind) {
        sentCounter(kind).increment()
    }

    /// Not sent because not needed: `polling` (a poll told the device), `unregistered` (the device
    /// has no token any more).
    func skipped(_ reason: String) {
        skippedCounter(reason).increment()
    }

    /// `reason`: APNs's (BadDeviceToken, Unregistered, TooManyRequests…), a webhook's status
    /// (HTTP 503), `expired`, or `unreachable` (no answer).
    func failed(_ reason: String) {
        failureCounter(reason).increment()
    }

    private func sentCounter(_ kind: PushDelivery.Kind) -> Counter {
        registry.makeCounter(name: "familysync_pushes_sent_total", labels: [("kind", kind.rawValue)], help: "Pushes accepted by APNs or the webhook.")
    }

    private func skippedCounter(_ reason: String) -> Counter {
        registry.makeCounter(name: "familysync_pushes_skipped_total", labels: [("reason", reason)], help: "Pushes not sent because not needed, by reason.")
    }

    private func failureCounter(_ reason: String) -> Counter {
        registry.makeCounter(name: "familysync_push_failures_total", labels: [("reason", reason)], help: "Pushes not sent, or not sent this time, by reason.")
    }
}
