import Foundation

/// What `familysync-bench cluster-ops` prints from its request log: per phase, for all families,
/// those on the other workers and those on the worker that was stopped; then how long the
/// stopped worker's families took to succeed again after its return.
struct ClusterOpsReport {
    let ledger: ClusterOpsLoad.Ledger
    let phases: [ClusterOpsBenchmark.Phase]
    let onStopped: Set<Int>
    let families: Int

    func print(returned: Double) {
        Swift.print("phase                       families         requests  5xx  503 (Retry-After/without, database_unavailable)  500  no answer  4xx        writes  write p50/p99 ms  usage p50 ms  slowest write/usage s  wakes  wake p50 ms")
        let groups: [(String, (Int) -> Bool)] = [
            ("all", { _ in true }), ("on other workers", { !onStopped.contains($0) }), ("on worker1", { onStopped.contains($0) }),
        ]
        for phase in phases {
            for (name, member) in groups {
                let entries = ledger.entries.filter { $0.sent >= phase.start && $0.sent < phase.end && member($0.family) }
                let wakes = ledger.wakes.filter { $0.at >= phase.start && $0.at < phase.end && member($0.family) }.map(\.seconds).sorted()
                let writes = entries.filter { $0.kind == .write && $0.status == 200 }.map(\.seconds).sorted()
                let usage = entries.filter { $0.kind == .usage && $0.status == 200 }.map(\.seconds).sorted()
                let refused = entries.filter { $0.status == 503 }
                let slowest = entries.filter { $0.kind != .poll }.map(\.seconds).max() ?? 0
                Swift.print(
                    String(
                        format: "%@ %@ %8d %4d  %@ %4d %10d %10d %7d  %@  %@  %@ %6d  %@",
                        pad(phase.name, 27), pad(name, 16), entries.count, entries.filter { $0.status >= 500 }.count,
                        pad(String(format: "%d (%d/%d, %d)", refused.count, refused.filter(\.retryAfter).count, refused.filter { !$0.retryAfter }.count,
                                   refused.filter(\.databaseUnavailable).count), 48),
                        entries.filter { $0.status == 500 }.count, entries.filter { $0.status == 0 }.count,
                        entries.filter { (400..<500).contains($0.status) }.count, writes.count,
                        pad(writes.isEmpty ? "-" : String(format: "%.1f/%.1f", ms(percentile(writes, 0.5)), ms(percentile(writes, 0.99))), 16),
                        pad(usage.isEmpty ? "-" : String(format: "%.1f", ms(percentile(usage, 0.5))), 12),
                        pad(String(format: "%.2f", slowest), 21), wakes.count, wakes.isEmpty ? "-" : String(format: "%.1f", ms(percentile(wakes, 0.5)))
                    )
                )
            }
        }
        ratios()
        recovery(returned: returned)
    }

    private func ms(_ seconds: Double) -> Double { seconds * 1000 }
    private func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }

    /// The families on the other workers: their write p50 in each phase over theirs before.
    private func ratios() {
        func p50(_ phase: ClusterOpsBenchmark.Phase) -> Double? {
            let writes = ledger.entries.filter {
                $0.sent >= phase.start && $0.sent < phase.end && !onStopped.contains($0.family) && $0.kind == .write && $0.status == 200
            }.map(\.seconds).sorted()
            return writes.isEmpty ? nil : percentile(writes, 0.5)
        }
        guard let before = phases.first.flatMap(p50) else { return }
        let parts = phases.dropFirst().compactMap { phase in p50(phase).map { String(format: "%@ %.2f×", phase.name, $0 / before) } }
        Swift.print("write p50 of the families on the other workers, over theirs before: " + parts.joined(separator: ", "))
    }

    /// From the worker's return: when each of its families had its first answered request sent
    /// after the return (any kind), and whether any failed after that.
    private func recovery(returned: Double) {
        var latest = 0.0, failedAfter = 0, never = 0
        for family in onStopped {
            let after = ledger.entries.filter { $0.family == family && $0.sent >= returned }.sorted { $0.sent < $1.sent }
            guard let first = after.first(where: { (200..<300).contains($0.status) }) else {
                never += 1
                continue
            }
            let succeeded = first.sent + first.seconds
            latest = max(latest, succeeded - returned)
            failedAfter += after.filter { $0.sent >= succeeded && !(200..<300).contains($0.status) }.count
        }
        Swift.print(
            String(
                format: "worker1's %d families after its return: every one answered again within %.2f s; %d of them never; %d failed requests after a family's first success",
                onStopped.count, latest, never, failedAfter
            )
        )
        // Within those seconds, each family's first success; and the time from the return to the
        // last failure of any of its families, which bounds the recovery from the other side.
        let lastFailure = ledger.entries.filter { onStopped.contains($0.family) && $0.sent >= returned && !(200..<300).contains($0.status) }.map { $0.sent + $0.seconds }.max()
        Swift.print(String(format: "last failed answer to worker1's families after its return: %@", lastFailure.map { String(format: "%.2f s after", $0 - returned) } ?? "none"))
    }
}
