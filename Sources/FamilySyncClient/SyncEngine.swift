import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// What a `SyncEngine` tells the app, in order.
public enum SyncEvent: Sendable, Equatable {
    /// Records of a zone changed (deleted ones come with `deleted: true`). Apply them; the engine
    /// saves the token after this event is delivered.
    case changes(zone: String, records: [RecordBody])
    /// The zone is gone: drop every local record of it.
    case zoneDeleted(String)
    /// The zone's token expired (the server purged tombstones it had not seen): drop every local
    /// record of the zone; its whole content follows as `changes`.
    case zoneReset(String)
    /// The server could not be reached, or answered "try again later" or "too many requests": the
    /// engine waits `retryIn` (the server's `Retry-After`, else its backoff) and goes on.
    case waiting(FamilySyncError, retryIn: Duration)
    /// The engine stopped for good: the credential no longer works (the device was revoked, or
    /// its family deleted). The app must pair again.
    case stopped(FamilySyncError)
    /// Changes the app added were answered: each saved, lost to another writer (with the server's
    /// record), a command made, or failed for good. `stillPending` is how many wait to be sent.
    /// Once the app asks for the next event they leave the state; an app killed before that is
    /// told again on its next launch (the server answers the resent request as the first time).
    case sent([SentChange], stillPending: Int)
}

/// A device's sync loop in the spirit of CKSyncEngine: it fetches the database's changes, then the
/// changed zones' in one request (CloudKit's multi-zone fetch), from the tokens it keeps in a
/// `SyncStateStore`, delivers them as events, then holds a long poll (PROTOCOL §6) and fetches
/// again when woken. Errors that a wait can fix (the server
/// down, `Retry-After`) are retried with backoff; a credential that stopped working ends it.
public actor SyncEngine {
    let client: FamilySyncClient
    let store: any SyncStateStore
    let credentialReference: String?
    let pollTimeout: Int
    /// A tracked device's heartbeat, carried by every poll it holds (`POST /v1/poll`).
    let heartbeat: PollHeartbeat?
    let backoff: RetryBackoff
    let sleep: @Sendable (Duration) async throws -> Void
    let handoff = EventHandoff()
    /// The run loop's state, for pushes (§12): whether it runs, the poll it holds, the fetches it
    /// completed, and those waiting for one.
    var running = false
    private var fetching = false
    var pushPending = false
    var heldPoll: Task<PollResponse, any Error>?
    private var fetchesDone = 0
    private var fetchWaiters: [(id: UUID, fetch: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// The events, for one consumer. The engine waits for the consumer: it goes on, and saves the
    /// token of a page, only when the consumer asks for the next event.
    public nonisolated var events: SyncEvents { SyncEvents(channel: handoff) }

    /// Whether the engine is waiting for the app to ask for the next event (it holds one): until
    /// then it saves no token and holds no poll.
    nonisolated var isWaitingForTheApp: Bool { handoff.senderAwaitsConsumer }

    /// `credentialReference` names the credential `client` holds (see `SyncState`); state saved
    /// under another reference is started over. `heartbeat`: on a tracked device, the heartbeat
    /// each poll carries (PROTOCOL §6, §10), so that the device's steady state is one request every
    /// `pollTimeout` seconds, not a poll and a heartbeat.
    public init(
        client: FamilySyncClient, store: any SyncStateStore, credentialReference: String? = nil, pollTimeout: Int = 30, heartbeat: PollHeartbeat? = nil,
        backoff: RetryBackoff = .init(), sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.client = client
        self.store = store
        self.credentialReference = credentialReference
        self.pollTimeout = pollTimeout
        self.heartbeat = heartbeat
        self.backoff = backoff
        self.sleep = sleep
    }

    /// Fetches, then polls and fetches again, until cancelled or stopped.
    public func run() async {
        running = true
        defer {
            running = false
            fetchWaiters.forEach { $0.continuation.resume() }
            fetchWaiters = []
        }
        var delay = backoff.initial
        // The last poll's answer: it lists what changed, so the fetch after it is one request.
        var woken: PollResponse?
        while !Task.isCancelled {
            let failure: (any Error)?
            do {
                try await sendPendingChanges()
                try await fetchRound(after: woken)
                woken = nil
                woken = try await holdPoll()
                failure = nil
            } catch {
                failure = error
            }
            guard let failure else {
                delay = backoff.initial
                continue
            }
            let error = failure as? FamilySyncError
            switch error?.code {
            case .authenticationRequired?:
                try? await failEveryPendingChange(error!)
                handoff.finish(with: .stopped(error!))
                return
            case .tryAgainLater?, .throttled?:
                let (wait, next) = backoff.wait(after: error!, delay: delay)
                await handoff.send(.waiting(error!, retryIn: wait))
                try? await sleep(wait)
                delay = next
            default:
                // A bug on one side or the other, or local storage failing: waiting is all it can do.
                let reason = error ?? FamilySyncError(.internalError, "The sync state could not be read or saved: \(failure)")
                await handoff.send(.waiting(reason, retryIn: backoff.maximum))
                try? await sleep(backoff.maximum)
            }
        }
        handoff.finish()
    }

    /// A fetch of the run loop, of what the poll's answer lists or else of everything after the
    /// saved tokens; those waiting for it are told when it is done.
    private func fetchRound(after answer: PollResponse?) async throws {
        fetching = true
        defer { fetching = false }
        if let answer {
            try await fetchChanges(listedIn: answer)
        } else {
            try await fetchChanges()
        }
        fetchesDone += 1
        let done = fetchWaiters.filter { $0.fetch <= fetchesDone }
        fetchWaiters.removeAll { $0.fetch <= fetchesDone }
        done.forEach { $0.continuation.resume() }
    }

    /// Holds a long poll until it answers, unless a push came meanwhile, which answers it too
    /// (nil: what changed is not known).
    private func holdPoll() async throws -> PollResponse? {
        if pushPending {
            pushPending = false
            return nil
        }
        let (client, since, timeout) = (client, try store.load().databaseToken, pollTimeout)
        while true {
            let report = try await heartbeat?.report()
            let poll = Task {
                if let report { return try await client.poll(since: since, timeout: timeout, heartbeat: report) }
                return try await client.poll(since: since, timeout: timeout)
            }
            heldPoll = poll
            defer { heldPoll = nil }
            do {
                let answer = try await withTaskCancellationHandler { try await poll.value } onCancel: { poll.cancel() }
                if let report { try await heartbeat?.reporter.delivered(report) }
                return answer
            } catch where pushPending {
                pushPending = false
                return nil
            } catch let error as FamilySyncError {
                // One error of the extension the server refuses must not hold back the rest, nor
                // the poll: it is dropped and the poll sent again at once.
                guard let report, try await heartbeat?.reporter.dropRefused(error, in: report) == true else { throw error }
            }
        }
    }

    /// A push came (PROTOCOL §12: the app's `didReceiveRemoteNotification`): the same as a poll's
    /// answer. A running engine lets go of the poll it holds (whose connection iOS may have cut
    /// while the app was suspended), fetches, and holds a poll again; this returns once a fetch
    /// begun after the push is done, so the app can then call the notification's completion
    /// handler. An engine not running (the app woken in the background) fetches here.
    public func pushReceived() async throws {
        guard running else {
            try await fetchChanges()
            return
        }
        // A fetch under way may have read before the push's change: the one after it counts.
        let fetch = fetchesDone + (fetching ? 2 : 1)
        pushPending = true
        heldPoll?.cancel()
        // The app's task cancelled (its background time is up): the wait ends, the fetch goes on.
        let waiter = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { return continuation.resume() }
                fetchWaiters.append((waiter, fetch, continuation))
            }
        } onCancel: {
            Task { await self.stopWaiting(waiter) }
        }
        try Task.checkCancellation()
    }

    /// Ends the wait of a cancelled `pushReceived`.
    private func stopWaiting(_ waiter: UUID) {
        guard let index = fetchWaiters.firstIndex(where: { $0.id == waiter }) else { return }
        fetchWaiters.remove(at: index).continuation.resume()
    }

    /// Ends `events` (after what was already sent), for an app that stops syncing.
    public func stop() {
        handoff.finish()
    }

    /// Skips what happened before now: the saved tokens become the current ones, no event is
    /// delivered for the past. The zones' tokens are read before the database's, so a change that
    /// lands in between is fetched, not skipped.
    public func startFromNow() async throws {
        try await adoptState()
        let zones = try await client.zones()
        var token = try store.load().databaseToken
        while true {
            let since = token
            switch await Result(catching: { () async throws(FamilySyncError) in try await client.databaseChanges(since: since) }) {
            case .success(let page):
                token = page.changeToken
                if !page.moreComing {
                    try store.update { state in
                        state.zoneTokens = Dictionary(uniqueKeysWithValues: zones.map { ($0.zoneName, $0.changeToken) })
                        state.databaseToken = token
                    }
                    return
                }
            case .failure(let error) where error.code == .changeTokenExpired || error.code == .badChangeToken:
                token = nil
            case .failure(let error):
                throw error
            }
        }
    }

    /// Every change after the saved tokens: the database's list of changed zones, then their
    /// records, every changed zone in one request (PROTOCOL §5.5), again for those with more to
    /// come, each zone token saved once the consumer is done with its page's event.
    /// The database token is saved last, once every zone it names has been fetched, so a crash part
    /// way fetches them again rather than losing one. The consumer must be taking `events` meanwhile.
    public func fetchChanges() async throws {
        try await adoptState()
        var since = try store.load().databaseToken
        var changed: [String] = []
        var deleted: [String] = []
        while true {
            let token = since
            switch await Result(catching: { () async throws(FamilySyncError) in try await client.databaseChanges(since: token) }) {
            case .success(let page):
                changed += page.zones.map(\.zoneName).filter { !changed.contains($0) }
                deleted += page.deletedZones
                since = page.changeToken
                if !page.moreComing { break }
                continue
            case .failure(let error) where error.code == .changeTokenExpired || error.code == .badChangeToken:
                // Start over: every zone is fetched whole, each reset first. A token the server
                // does not take (another server's, or a store restored from elsewhere) is no
                // better than an expired one.
                try await startOver()
                (since, changed, deleted) = (nil, [], [])
                continue
            case .failure(let error):
                throw error
            }
            break
        }
        for zone in deleted { try await forget(zone) }
        try await fetchZones(changed.filter { !deleted.contains($0) }, thenDatabaseToken: since)
    }

    /// What a poll's answer lists: §6's answer names every zone the caller sees that changed after
    /// the saved database token (deleted ones too), which is what `GET /v1/changes` would list, so
    /// the zones are fetched at once and the answer's token saved with them: a wake is one request
    /// after the poll. A deleted zone answers `ZONE_NOT_FOUND` and is forgotten.
    private func fetchChanges(listedIn answer: PollResponse) async throws {
        guard answer.changed else { return }
        // Tokens saved under another credential start over: the answer speaks of the old ones.
        if let credentialReference, try store.load().credentialReference != credentialReference {
            return try await fetchChanges()
        }
        try await fetchZones(answer.zones ?? [], thenDatabaseToken: answer.changeToken)
    }

    /// The zones' records: one `POST /v1/changes/zones` for up to 50 of them, then another only
    /// for the zones with more to come or started over, until none is left. A request's zone
    /// tokens are saved together once the consumer is done with its events, and the last one's
    /// with the database token: a usual wake costs one durable write, not one a zone and one more.
    private func fetchZones(_ zones: [String], thenDatabaseToken databaseToken: String?) async throws {
        // Read once: from here on this engine is the only writer of these zones' tokens.
        var tokens = try store.load().zoneTokens
        var pending = zones
        repeat {
            let batch = Array(pending.prefix(Limits.maximumZonesPerFetch))
            pending.removeFirst(batch.count)
            var fetched: [String: String?] = [:]
            if !batch.isEmpty {
                let answers = try await client.changes(inZones: batch.map { MultiZoneChangesRequest.Zone(zoneName: $0, since: tokens[$0]) })
                // The records the app changed and has not been told about, read once an answer:
                // a fetched page does not undo them; what the app sends is answered with the
                // server's record, saved or in conflict.
                let unsent = try unsentRecords()
                // A zone left out would be skipped for good once the database token is saved: rather
                // not save it, and ask again after the wait.
                if let missing = batch.first(where: { zone in !answers.contains { $0.zoneName == zone } }) {
                    throw FamilySyncError(.internalError, "The server's answer left out zone '\(missing)'.")
                }
                for answer in answers where batch.contains(answer.zoneName) {
                    let zone = answer.zoneName
                    switch answer.outcome {
                    case .success(let page):
                        let held = unsent[zone] ?? []
                        let records = held.isEmpty ? page.records : page.records.filter { !held.contains($0.recordName) }
                        if !records.isEmpty { await handoff.send(.changes(zone: zone, records: records)) }
                        fetched[zone] = .some(page.changeToken)
                        tokens[zone] = page.changeToken
                        if page.moreComing { pending.append(zone) }
                    case .failure(let error) where error.code == .changeTokenExpired || error.code == .badChangeToken:
                        await handoff.send(.zoneReset(zone))
                        fetched[zone] = .some(nil)
                        tokens[zone] = nil
                        pending.append(zone)
                    case .failure(let error) where error.code == .zoneNotFound:
                        // Deleted since the database's list was read; the next list says so too.
                        try await forget(zone)
                    case .failure(let error):
                        throw error
                    }
                }
            }
            let last = pending.isEmpty
            try store.update { state in
                for (zone, token) in fetched { state.zoneTokens[zone] = token }
                if last { state.databaseToken = databaseToken }
            }
        } while !pending.isEmpty
    }

    private func forget(_ zone: String) async throws {
        await handoff.send(.zoneDeleted(zone))
        try store.update { $0.zoneTokens[zone] = nil }
    }

    /// Starts the saved state over if it was saved under another credential.
    private func adoptState() async throws {
        guard let credentialReference, try store.load().credentialReference != credentialReference else { return }
        try await startOver()
    }

    /// Tells the app to drop every zone it holds, then forgets every token; queued usage stays.
    private func startOver() async throws {
        for zone in try store.load().zoneTokens.keys.sorted() { await handoff.send(.zoneReset(zone)) }
        try store.update { state in
            // What the app made and has not been told about is still to send.
            state = SyncState(
                credentialReference: credentialReference ?? state.credentialReference, pendingUsage: state.pendingUsage,
                pendingHealthErrors: state.pendingHealthErrors, pendingChanges: state.pendingChanges, sending: state.sending
            )
        }
    }
}
