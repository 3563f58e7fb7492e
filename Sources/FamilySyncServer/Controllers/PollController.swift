import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird
import Tracing
import Logging
import ServiceLifecycle
import Synchronization

/// `GET /v1/poll` (PROTOCOL §6): the silent push's stand-in. Answers at once when something the
/// caller sees changed after `since`, else holds until a change, the timeout, a newer poll of the
/// same device, or the server's shutdown. `POST /v1/poll` is the same poll carrying a tracked
/// device's heartbeat (§10), so that a device's steady rhythm is one request.
struct PollController {
    let hub: PollHub
    let polls: PostgresPollStore
    let keyring: ChangeTokenKeyring
    let metrics: PollMetrics
    let clock: any WallClock
    /// Push on (§12): a held poll marks its device's push registration, so that no push goes to it.
    let marksPushHolds: Bool
    /// Where `POST /v1/poll`'s heartbeat goes, as `POST /v1/devices/me/health` sends it.
    let heartbeats: DeviceHealthController
    let logger: Logger

    func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
        group.get("poll", use: longPoll)
            .post("poll", use: heartbeatAndPoll)
    }

    /// `GET /v1/poll[?since=&timeout=]`: answered at once if something changed after `since`, else held.
    @Sendable func longPoll(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readDatabaseChanges)
        let (since, sinceText, timeout) = try arguments(of: request, caller)
        return try await longPoll(request, context: context, caller: caller, since: since, sinceText: sinceText, timeout: timeout)
    }

    /// `POST /v1/poll[?since=&timeout=]` with a heartbeat as its body (§6, §10): the heartbeat is
    /// taken as `POST /v1/devices/me/health` takes it, then the poll is held as `GET` holds it.
    /// Everything the request says is checked before either: a refusal changes nothing.
    @Sendable func heartbeatAndPoll(_ request: Request, context: FamilySyncRequestContext) async throws -> Response {
        let caller = try context.requireDevice()
        try AccessPolicy.check(caller, .readDatabaseChanges)
        try AccessPolicy.check(caller, .reportHealth)
        let (since, sinceText, timeout) = try arguments(of: request, caller)
        let report = try await heartbeats.report(in: request, context: context)
        _ = try await heartbeats.take(report, from: caller, answering: false)
        return try await longPoll(request, context: context, caller: caller, since: since, sinceText: sinceText, timeout: timeout)
    }

    private func arguments(of request: Request, _ caller: AuthenticatedDevice) throws -> (since: ChangeToken?, sinceText: String?, timeout: Duration) {
        let timeout = try LongPollRules.timeout(from: request.uri.queryParameters.get("timeout"))
        let sinceText: String? = request.uri.queryParameters.get("since")
        return (try keyring.decodeDatabase(sinceText, for: caller), sinceText, timeout)
    }

    private func longPoll(
        _ request: Request, context: FamilySyncRequestContext, caller: AuthenticatedDevice, since: ChangeToken?, sinceText: String?, timeout: Duration
    ) async throws -> Response {
        // Subscribed before the first read: a change committed while it runs wakes the wait.
        let ticket = hub.subscribe(caller)
        defer { hub.unsubscribe(ticket) }
        do {
            // A client that goes away ends its wait at once (as `.cancelled`): its connection's
            // end, seen by the connection's `ConnectionEndWatcher`, or for the dashboard's
            // in-process polls (`/app/live` watches its browser's connection) the caller's
            // cancellation. The connection stays open for the client's next poll.
            var watcher: ConnectionEndWatcher?
            if !context.inProcess, let connection = context.connection {
                do {
                    watcher = try await connection.pipeline.handler(type: ConnectionEndWatcher.self).get()
                    watcher?.watch(on: connection.eventLoop) { [hub] in hub.release(ticket, .cancelled) }
                } catch {
                    // No watcher: the channel closed already (its pipeline emptied) or has none
                    // (a test's channel). Its close ends the wait; a closed one at once.
                    connection.closeFuture.whenComplete { [hub] _ in hub.release(ticket, .cancelled) }
                }
            }
            defer { if let watcher, let loop = context.connection?.eventLoop { watcher.unwatch(on: loop) } }
            let answer = try await withTaskCancellationHandler {
                try await poll(caller, ticket: ticket, since: since, sinceText: sinceText, timeout: timeout)
            } onCancel: { [hub] in
                hub.release(ticket, .cancelled)
            }
            return try answer.response(from: request, context: context)
        } catch is CancellationError {
            // Nobody is left to read it; 499 (as nginx logs it) keeps the metrics honest.
            return Response(status: .init(code: 499, reasonPhrase: "Client Closed Request"))
        }
    }

    func poll(_ caller: AuthenticatedDevice, ticket: PollHub.Ticket, since: ChangeToken?, sinceText: String?, timeout: Duration) async throws -> PollResponse {
        // The mark outlives the poll by a margin only if this instance dies holding it.
        let holdUntil = marksPushHolds ? clock.now().addingTimeInterval(Double(timeout.components.seconds) + 15) : nil
        let marked = Mutex(false)
        do {
            let answer = try await poll(caller, ticket: ticket, since: since, sinceText: sinceText, timeout: timeout, holdUntil: holdUntil) {
                marked.withLock { $0 = true }
            }
            // A mark that cannot be cleared (the database away) ends with its deadline; the
            // answer is the client's either way.
            if let holdUntil, marked.withLock({ $0 }) { try? await polls.release(caller, heldUntil: holdUntil) }
            return answer
        } catch {
            if let holdUntil { try? await polls.release(caller, heldUntil: holdUntil) }
            throw error
        }
    }

    private func poll(
        _ caller: AuthenticatedDevice, ticket: PollHub.Ticket, since: ChangeToken?, sinceText: String?, timeout: Duration, holdUntil: Date?,
        onMarked: @escaping @Sendable () -> Void
    ) async throws -> PollResponse {
        let deadline = ContinuousClock.now + timeout
        return try await withGracefulShutdownHandler {
            var after = since?.sequence
            var noticed: ContinuousClock.Instant?
            var firstRead = true
            while true {
                if let check = try await read(caller, after: after, holding: !firstRead, holdUntil: firstRead ? holdUntil : nil) {
                    if check.holding { onMarked() }
                    if after != nil, check.changed {
                        if let noticed { metrics.wakeLatency.record(.now - noticed) }
                        return PollResponse(
                            changed: true, zones: check.zones, devices: check.devices.map(\.lowercased),
                            changeToken: try token(caller, check.sequence)
                        )
                    }
                    // Without `since`, the first read fixes the sequence to wait from.
                    if after == nil { after = check.sequence }
                }
                firstRead = false
                // The wait, as a span when tracing is on, with what ended it.
                let outcome = try await Traced.span("poll.wait") { span in
                    let outcome = await hub.wait(ticket, until: deadline)
                    span?.attributes["familysync.poll.outcome"] = outcome.name
                    return outcome
                }
                switch outcome {
                case .recheck(let instant):
                    noticed = noticed ?? instant
                case .timedOut, .superseded, .shuttingDown:
                    // `after` is set: the first read either set it or threw.
                    return PollResponse(changed: false, changeToken: try sinceText ?? token(caller, after ?? 0))
                case .cancelled:
                    throw CancellationError()
                }
                if Task.isCancelled { throw CancellationError() }
            }
        } onGracefulShutdown: {
            hub.release(ticket, .shuttingDown)
        }
    }

    /// Reads what changed. While a poll is held, a database that is down is not the client's
    /// problem: the poll keeps holding (nil), and the listener wakes it once the database is back.
    private func read(_ caller: AuthenticatedDevice, after: Int64?, holding: Bool, holdUntil: Date?) async throws -> PostgresPollStore.Check? {
        do {
            return try await polls.check(caller, after: after, holdUntil: holdUntil)
        } catch {
            guard holding, DatabaseErrorTranslation.translate(error)?.code == .tryAgainLater else { throw error }
            logger.debug("a held poll could not read the database; it waits for the listener", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// A database token at `sequence` (0 for a device awaiting confirmation: it has seen nothing).
    private func token(_ caller: AuthenticatedDevice, _ sequence: Int64) throws(FamilySyncError) -> String {
        try keyring.encode(ChangeToken(database: caller, at: sequence))
    }
}
