import FamilySyncCore
import Prometheus

/// `familysync_requests_shed_total{reason}`: the requests answered `TRY_AGAIN_LATER` for want of
/// the database, a connection or a family's turn. Every reason is on `/metrics` from the start, at
/// zero, so that a rate over it and the alert rules on it (deploy/prometheus) see the series
/// before the first shed request.
package struct ShedMetrics: Sendable {
    private let counters: [TryAgainReason: Counter]

    package init(registry: PrometheusCollectorRegistry) {
        counters = Dictionary(uniqueKeysWithValues: TryAgainReason.allCases.map { reason in
            (reason, registry.makeCounter(
                name: "familysync_requests_shed_total", labels: [("reason", reason.rawValue)],
                help: "Requests answered 503 TRY_AGAIN_LATER for want of the database, a connection or a family's turn, by reason."
            ))
        })
    }

    func count(_ reason: TryAgainReason) {
        counters[reason]?.increment()
    }
}
