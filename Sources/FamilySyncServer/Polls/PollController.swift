import FamilySyncCore
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Tracing

/// `GET /v1/poll` (PROTOCOL §6): the silent push's stand-in. Answers at once when something the
/// caller sees changed after `since`, else holds until a change, the timeout, a newer poll of the
/// same device, or the server's shutdown. `POST /v1/poll` is the same poll carrying a tracked
/// device's heartbeat (§10), so that a device's steady rhythm is one request.
package struct PollController {
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

    package init(
        hub: PollHub, polls: PostgresPollStore, keyring: ChangeTokenKeyring, metrics: PollMetrics, clock: any WallClock,
        marksPushHolds: Bool, heartbeats: DeviceHealthController, logger: Logger
    ) {
        self.hub = hub
        self.polls = polls
        self.keyring = keyring
        self.metrics = metrics
        self.clock = clock
        self.marksPushHolds = marksPushHolds
        self.heartbeats = heartbeats
        self.logger = logger
    }

    package func addRoutes(to group: RouterGroup<FamilySyncRequestContext>) {
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
        _ = try await heartbeats.take(report, from: caller, as: context.writer, answering: false)
        return try await longPoll(request, context: context, caller: caller, since: since, sinceText: sinceText, timeout: timeout)
    }

    private func arguments(of request: Request, _ caller: AuthenticatedDevice) throws -> (since: ChangeToken?, sinceText: String?, timeout: Duration) {
        let query = request.uri.queryParameters
        let timeout = try LongPollRules.timeout(from: query.get("timeout"))
        let sinceText: String? = query.get("since")
        return (try keyring.decodeDatabase(sinceText, for: caller), sinceText, timeout)
    }

    private func longPoll(
        _ request: Request, context: FamilySyncRequestContext, caller: AuthenticatedDevice, since: ChangeToken?, sinceText: String?, timeout: Duration
    ) async throws -> Response {
        // Subscribed before the first read: a change committed while it runs wakes the wait.
        let ticket = hub.subscribe(caller)
        var held = HeldPoll(
            caller: caller, ticket: ticket, after: since?.sequence, sinceText: sinceText, deadline: .now + timeout,
            holdUntil: marksPushHolds ? clock.now().addingTimeInterval(Double(timeout.components.seconds) + 15) : nil
        )
        let answer: PollResponse?
        do {
            answer = try await first(&held)
        } catch {
            await end(held)
            throw error
        }
        if let answer {
            await end(held)
            return try answer.response(from: request, context: context)
        }
        // It waits. From a connection, outside the chain (`PollParking`); the dashboard's
        // in-process polls, in place.
        if let parking = PollParking.current, !context.inProcess {
            let connection = context.connection, logger = context.logger
            // Its `poll.wait` spans stay in the request's trace, under the request's span (which
            // ends as the poll begins to wait).
            guard let tracer = Traced.tracer else {
                return parking.park { [self, held] in await parked(held, connection: connection, request: request, logger: logger) }
            }
            let trace = InstrumentationContext.current
            return parking.park { [self, held] in
                await Traced.$tracer.withValue(tracer) {
                    await InstrumentationContext.$current.withValue(trace) { await parked(held, connection: connection, request: request, logger: logger) }
                }
            }
        }
        let outcome: Result<PollResponse, any Error>
        do { outcome = .success(try await hold(held, connection: context.connection, inProcess: context.inProcess)) } catch { outcome = .failure(error) }
        await end(held)
        if case .failure(is CancellationError) = outcome { return Self.clientClosed }
        return try outcome.get().response(from: request, context: context)
    }

    /// A poll's state between its reads.
    struct HeldPoll: Sendable {
        let caller: AuthenticatedDevice
        let ticket: PollHub.Ticket
        /// The sequence it waits from: `since`'s, or the first read's without one.
        var after: Int64?
        let sinceText: String?
        let deadline: ContinuousClock.Instant
        /// Push on (§12): until when the first read marked the device's registration as held.
        let holdUntil: Date?
        var marked = false
    }

    /// The first read: the answer when something changed after `since`, else nil (it waits).
    private func first(_ held: inout HeldPoll) async throws -> PollResponse? {
        let check = try await polls.check(held.caller, after: held.after, holdUntil: held.holdUntil)
        held.marked = check.holding
        if held.after != nil, check.changed {
            return PollResponse(changed: true, zones: check.zones, devices: check.devices.map(\.lowercased), changeToken: try token(held.caller, check.sequence))
        }
        // Without `since`, the first read fixes the sequence to wait from.
        if held.after == nil { held.after = check.sequence }
        return nil
    }

    /// A parked poll's wait, in the connection's task: its answer, or §1.1's JSON for an error.
    private func parked(_ held: HeldPoll, connection: (any Channel)?, request: Request, logger: Logger) async -> Response {
        let response: Response
        do {
            let answer = try await hold(held, connection: connection, inProcess: false)
            response = WireResponseEncoder.response(answer)
        } catch is CancellationError {
            response = Self.clientClosed
        } catch {
            // As `ErrorMiddleware` answers it: the chain has returned. (A held poll's reads never
            // shed: a database that is away keeps it waiting.)
            response = ErrorMiddleware.response(for: error, request: request, logger: logger, shed: nil)
        }
        await end(held)
        return response
    }

    /// Nobody is left to read it; 499 (as nginx logs it) keeps the metrics honest.
    static let clientClosed = Response(status: .init(code: 499, reasonPhrase: "Client Closed Request"))

    /// The poll leaves the hub, and its push mark is cleared. A mark that cannot be cleared (the
    /// database away) ends with its deadline.
    private func end(_ held: HeldPoll) async {
        hub.unsubscribe(held.ticket)
        guard held.marked, let holdUntil = held.holdUntil else { return }
        // In a task of its own, as the reads after a wake.
        async let released: Void = polls.release(held.caller, heldUntil: holdUntil)
        try? await released
    }

    /// Waits for a change, the timeout, a newer poll of the device, the server's shutdown or the
    /// client's going away (`CancellationError`). A parked poll waits here in its connection's
    /// task, which keeps the memory of its deepest stack for as long as the connection lives: so
    /// this is one frame over the hub's wait, with no async step that tracing off does not need.
    private func hold(_ held: HeldPoll, connection: (any Channel)?, inProcess: Bool) async throws -> PollResponse {
        let ticket = held.ticket, hub = hub
        // A client that goes away ends its wait at once (as `.cancelled`): its connection's end,
        // seen by the connection's `ConnectionEndWatcher`, or for the dashboard's in-process polls
        // (`/app/live` watches its browser's connection) the caller's cancellation, which the
        // hub's wait sees. The connection stays open for the client's next poll.
        let watched = inProcess ? nil : connection
        if let watched { ConnectionEndWatcher.watch(watched) { hub.release(ticket, .cancelled) } }
        defer { if let watched { ConnectionEndWatcher.unwatch(watched) } }
        let after = held.after ?? 0
        return try await withGracefulShutdownHandler {
            var noticed: ContinuousClock.Instant?
            while true {
                let outcome = Traced.tracer == nil ? await hub.wait(ticket, until: held.deadline) : await tracedWait(held)
                switch outcome {
                case .recheck(let instant):
                    noticed = noticed ?? instant
                case .timedOut, .superseded, .shuttingDown:
                    return PollResponse(changed: false, changeToken: try held.sinceText ?? token(held.caller, after))
                case .cancelled:
                    throw CancellationError()
                }
                if Task.isCancelled { throw CancellationError() }
                if let check = try await reread(held.caller, after: after), check.changed {
                    if let noticed { metrics.wakeLatency.record(.now - noticed) }
                    return PollResponse(changed: true, zones: check.zones, devices: check.devices.map(\.lowercased), changeToken: try token(held.caller, check.sequence))
                }
            }
        } onGracefulShutdown: {
            hub.release(ticket, .shuttingDown)
        }
    }

    /// The hub's wait as a `poll.wait` span, with what ended it (tracing on).
    private func tracedWait(_ held: HeldPoll) async -> PollHub.Wake {
        // `Traced.span` rethrows what its body throws; this body throws nothing.
        (try? await Traced.span("poll.wait") { span in
            let outcome = await hub.wait(held.ticket, until: held.deadline)
            span?.attributes["familysync.poll.outcome"] = outcome.name
            return outcome
        }) ?? .cancelled
    }

    /// `read` in a task of its own: its frames (the pool's, PostgresNIO's) end with it instead of
    /// staying in the waiting task's slabs, and the wait's own frame holds no `async let`.
    private func reread(_ caller: AuthenticatedDevice, after: Int64) async throws -> PostgresPollStore.Check? {
        async let check = read(caller, after: after)
        return try await check
    }

    /// Reads what changed after a wake. While a poll is held, a database that is down is not the
    /// client's problem: the poll keeps holding (nil), and the listener wakes it once the database
    /// is back.
    private func read(_ caller: AuthenticatedDevice, after: Int64) async throws -> PostgresPollStore.Check? {
        do {
            return try await polls.check(caller, after: after, holdUntil: nil)
        } catch {
            guard DatabaseErrorTranslation.translate(error)?.code == .tryAgainLater else { throw error }
            logger.debug("a held poll could not read the database; it waits for the listener", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// A database token at `sequence` (0 for a device awaiting confirmation: it has seen nothing).
    private func token(_ caller: AuthenticatedDevice, _ sequence: Int64) throws(FamilySyncError) -> String {
        try keyring.encode(ChangeToken(database: caller, at: sequence))
    }
}
