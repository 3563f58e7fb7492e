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
    /// The engine stopped for good: the credential no longer works (the device was revoked, or
    /// its family deleted). The app must pair again.
    case stopped(FamilySyncError)
}

/// A device's sync loop in the spirit of CKSyncEngine: it fetches the database's and each zone's
/// changes from the tokens it keeps in a `SyncStateStore`, delivers them as events, then holds a
/// long poll (PROTOCOL §6) and fetches again when woken. Errors that a wait can fix (the server
/// down, `Retry-After`) are retried with backoff; a credential that stopped working ends it.
public actor SyncEngine {
    let client: FamilySyncClient
    let store: any SyncStateStore
    let credentialReference: String?
    let pollTimeout: Int
    let backoff: UsageUploadQueue.Backoff
    let sleep: @Sendable (Duration) async throws -> Void
    private let continuation: AsyncStream<SyncEvent>.Continuation
    /// The events, for one consumer.
    public nonisolated let events: AsyncStream<SyncEvent>

    /// `credentialReference` names the credential `client` holds (see `SyncState`); state saved
    /// under another reference is started over.
    public init(
        client: FamilySyncClient, store: any SyncStateStore, credentialReference: String? = nil, pollTimeout: Int = 30,
        backoff: UsageUploadQueue.Backoff = .init(), sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.client = client
        self.store = store
        self.credentialReference = credentialReference
        self.pollTimeout = pollTimeout
        self.backoff = backoff
        self.sleep = sleep
        (events, continuation) = AsyncStream.makeStream(of: SyncEvent.self, bufferingPolicy: .unbounded)
    }

    /// Fetches, then polls and fetches again, until cancelled or stopped.
    public func run() async {
        var delay = backoff.initial
        while !Task.isCancelled {
            let failure: (any Error)?
            do {
                try await fetchChanges()
                let state = try await store.load()
                _ = try await client.poll(since: state.databaseToken, timeout: pollTimeout)
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
                continuation.yield(.stopped(error!))
                continuation.finish()
                return
            case .tryAgainLater?, .throttled?:
                try? await sleep(error?.retryAfter.map { .seconds($0) } ?? delay * Double.random(in: 0.5...1.0))
                delay = min(delay * 2, backoff.maximum)
            default:
                // A bug on one side or the other, or local storage failing: waiting is all it can do.
                try? await sleep(backoff.maximum)
            }
        }
        continuation.finish()
    }

    /// Ends `events` (after what was already delivered), for an app that stops syncing.
    public func stop() {
        continuation.finish()
    }

    /// Skips what happened before now: the saved tokens become the current ones, no event is
    /// delivered for the past. The zones' tokens are read before the database's, so a change that
    /// lands in between is fetched, not skipped.
    public func startFromNow() async throws {
        var state = try await loadOwnState()
        let zones = try await client.zones()
        var token = state.databaseToken
        while true {
            let page = try await client.databaseChanges(since: token)
            token = page.changeToken
            if !page.moreComing { break }
        }
        state.zoneTokens = Dictionary(uniqueKeysWithValues: zones.map { ($0.zoneName, $0.changeToken) })
        state.databaseToken = token
        try await store.save(state)
    }

    /// Every change after the saved tokens: the database's list of zones, then each zone's records,
    /// page by page, each token saved after its page's event.
    public func fetchChanges() async throws {
        var state = try await loadOwnState()
        var zones: [String] = []
        while true {
            let since = state.databaseToken
            let page: DatabaseChangesResponse
            switch await Result(catching: { () async throws(FamilySyncError) in try await client.databaseChanges(since: since) }) {
            case .success(let answer):
                page = answer
            case .failure(let error) where error.code == .changeTokenExpired || error.code == .badChangeToken:
                // Start over: every zone is fetched whole, each reset first. A token the server
                // does not take (another server's, or a store restored from elsewhere) is no
                // better than an expired one.
                state = try await startOver(state)
                continue
            case .failure(let error):
                throw error
            }
            for name in page.deletedZones {
                continuation.yield(.zoneDeleted(name))
                state.zoneTokens[name] = nil
            }
            zones += page.zones.map(\.zoneName)
            state.databaseToken = page.changeToken
            if !page.moreComing { break }
        }
        try await store.save(state)
        for zone in zones { try await fetchZone(zone) }
    }

    private func fetchZone(_ zone: String) async throws {
        while true {
            var state = try await store.load()
            let since = state.zoneTokens[zone]
            let page: ZoneChangesResponse
            switch await Result(catching: { () async throws(FamilySyncError) in try await client.zoneChanges(zone, since: since) }) {
            case .success(let answer):
                page = answer
            case .failure(let error) where error.code == .changeTokenExpired || error.code == .badChangeToken:
                continuation.yield(.zoneReset(zone))
                state.zoneTokens[zone] = nil
                try await store.save(state)
                continue
            case .failure(let error):
                throw error
            }
            if !page.records.isEmpty { continuation.yield(.changes(zone: zone, records: page.records)) }
            state.zoneTokens[zone] = page.changeToken
            try await store.save(state)
            if !page.moreComing { return }
        }
    }

    /// The saved state, started over if it was saved under another credential.
    private func loadOwnState() async throws -> SyncState {
        let state = try await store.load()
        guard let credentialReference, state.credentialReference != credentialReference else { return state }
        var fresh = try await startOver(state)
        fresh.credentialReference = credentialReference
        try await store.save(fresh)
        return fresh
    }

    /// Tells the app to drop every zone it holds, and forgets every token; queued usage stays.
    private func startOver(_ state: SyncState) async throws -> SyncState {
        for zone in state.zoneTokens.keys.sorted() { continuation.yield(.zoneReset(zone)) }
        let fresh = SyncState(credentialReference: state.credentialReference, pendingUsage: state.pendingUsage)
        try await store.save(fresh)
        return fresh
    }
}
