import FamilySyncCore
import FamilySyncPostgres
import Foundation
import Logging
import ServiceLifecycle

/// The push sender of an instance (PROTOCOL §12), a service beside the change listener: it claims
/// due outbox rows, sends them at once (HTTP/2 carries them side by side), and settles each by its
/// outcome. Woken by the outbox channel when a transaction queued pushes; otherwise it looks again
/// when the next row is due, at least every `idleInterval`.
package struct PushSender: Service {
    let claims: PostgresPushClaims
    let migrated: StartupGate
    let makeTransport: @Sendable () async throws -> any PushTransport
    let wake: PushWake
    let metrics: PushMetrics
    let clock: any WallClock
    let settings: PushSettings
    let logger: Logger

    package init(
        claims: PostgresPushClaims, migrated: StartupGate,
        makeTransport: @escaping @Sendable () async throws -> any PushTransport, wake: PushWake, metrics: PushMetrics, clock: any WallClock, settings: PushSettings, logger: Logger
    ) {
        self.claims = claims
        self.migrated = migrated
        self.makeTransport = makeTransport
        self.wake = wake
        self.metrics = metrics
        self.clock = clock
        self.settings = settings
        self.logger = logger
    }
    static let batchSize = 100

    package func run() async throws {
        // Made here, so that it is shut down by the service that made it.
        let transport = try await makeTransport()
        await cancelWhenGracefulShutdown {
            await migrated.wait()
            while !Task.isCancelled {
                do {
                    let claimed = try await claims.claim(
                        now: clock.now(), limit: Self.batchSize, claimFor: settings.claimFor, minimumInterval: settings.minimumInterval
                    )
                    if claimed.isEmpty {
                        await idle()
                        continue
                    }
                    await withTaskGroup(of: Void.self) { group in
                        for claim in claimed {
                            group.addTask { await deliver(claim, with: transport) }
                        }
                    }
                } catch {
                    logger.warning("push sender: the outbox could not be read; trying again", metadata: [
                        "error": "\(DatabaseErrorTranslation.describeForOperator(error))",
                    ])
                    await wake.wait(timeout: settings.idleInterval)
                }
            }
        }
        try? await transport.shutdown()
    }

    /// Counts the outbox for the metrics and waits for a wake or the next due row.
    private func idle() async {
        var timeout = settings.idleInterval
        do {
            let (count, nextDue) = try await claims.depth(minimumInterval: settings.minimumInterval)
            metrics.outboxDepth.set(Double(count))
            if let nextDue {
                // A row due now that was not claimable is another sender's, mid-claim: look again soon.
                let wait = Duration.milliseconds(Int64(max(nextDue.timeIntervalSince(clock.now()), 0.01) * 1000))
                timeout = min(timeout, wait)
            }
        } catch {
            logger.debug("push sender: could not count the outbox", metadata: ["error": "\(error)"])
        }
        await wake.wait(timeout: timeout)
    }

    /// Sends one claimed row unless it is no longer needed, and settles it.
    func deliver(_ claim: PostgresPushClaims.Claim, with transport: any PushTransport) async {
        let settlement: PostgresPushClaims.Settlement
        if let delivery = claim.delivery {
            if claim.kind == .background && claim.polling {
                metrics.skipped("polling")
                settlement = .dropped
            } else if claim.expiresAt <= clock.now() {
                metrics.failed("expired")
                settlement = .dropped
            } else {
                settlement = await send(delivery, with: transport)
            }
        } else {
            metrics.skipped("unregistered")
            settlement = .dropped
        }
        do {
            try await claims.settle(claim, settlement)
        } catch {
            // The claim ends on its own and the row is tried again: sent twice at worst, never lost.
            logger.warning("push sender: a push could not be settled", metadata: ["push": "\(claim.pushID)", "error": "\(error)"])
        }
    }

    private func send(_ delivery: PushDelivery, with transport: any PushTransport) async -> PostgresPushClaims.Settlement {
        let outcome = await transport.send(delivery)
        let now = clock.now()
        switch outcome {
        case .sent:
            metrics.sent(delivery.kind)
            metrics.deliveryLatency.record(.milliseconds(Int64(max(now.timeIntervalSince(delivery.createdAt), 0) * 1000)))
            return .sent(at: now)
        case .tokenGone(let reason):
            metrics.failed(reason)
            logger.info("push token removed", metadata: ["device": "\(delivery.deviceID.lowercased)", "reason": "\(reason)"])
            return .tokenGone(delivery.registration.token)
        case .retry(let reason):
            metrics.failed(reason)
            let at = now.addingTimeInterval(PushBackoff.delay(afterAttempt: delivery.attempts, jitter: Double.random(in: 0.5...1)))
            guard at < delivery.expiresAt else {
                metrics.failed("expired")
                return .dropped
            }
            return .retry(at: at)
        case .rejected(let reason):
            metrics.failed(reason)
            logger.warning("a push was refused", metadata: ["push": "\(delivery.pushID)", "reason": "\(reason)"])
            return .dropped
        }
    }
}
