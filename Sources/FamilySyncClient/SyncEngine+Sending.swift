import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// The engine's sending half, as CKSyncEngine's: the app adds changes, the engine keeps them in
/// its state, sends them in order with idempotency keys (§1.2.1), and tells the app what became
/// of each (`SyncEvent.sent`). docs/sdk.md, "Sending changes".
extension SyncEngine {
    /// Adds changes to send (CKSyncEngine's `state.add(pendingRecordZoneChanges:)`): they are in
    /// the state store, durably, when this returns, merged per record (`Outbox.adding`). A running
    /// engine sends them at once, leaving its held poll; one not running sends them on its next
    /// `run()` or `sendPendingChanges()`.
    public func add(_ changes: [PendingChange]) throws {
        try store.update { state in
            state.pendingChanges = Outbox.adding(changes, to: state.pendingChanges)
        }
        if running {
            pushPending = true
            heldPoll?.cancel()
        }
    }

    public func add(_ change: PendingChange) throws {
        try add([change])
    }

    /// The changes not yet answered, the one on its way first: what an app shows as "2 changes
    /// waiting to be sent".
    public nonisolated func pendingChanges() throws -> [PendingChange] {
        try store.load().unsentChanges
    }

    /// Sends every pending change, then returns: the one call for a `BGTaskScheduler` task or a
    /// silent push's short window. A server that cannot be reached, or asks to wait, ends it with
    /// that error, the changes still pending. The app must be taking `events` meanwhile: each
    /// answered request is a `sent` event, and leaves the state once the app asks for the next.
    public func sendPendingChanges() async throws {
        do {
            // The request the app was last told about leaves the state in the same write that
            // takes the next one: one durable write a request.
            var told: String?
            while let (batch, pending) = try nextRequest(after: told) {
                try await send(batch, pending: pending)
                told = batch.idempotencyKey
            }
        } catch let error as FamilySyncError where error.code == .authenticationRequired {
            try await failEveryPendingChange(error)
            throw error
        }
    }

    /// The request on its way (after a restart: again, as it was), else the next one made from
    /// the pending changes and kept in the state before it goes; with how many wait after it.
    /// `told`: the request whose answer the app has taken, which leaves the state first.
    private func nextRequest(after told: String?) throws -> (SendingBatch, Int)? {
        // Nothing to send, nothing to clear: no write (the run loop asks before every fetch).
        if told == nil {
            let state = try store.load()
            if state.sending == nil, state.pendingChanges.isEmpty { return nil }
        }
        return try store.update { state in
            if let told, state.sending?.idempotencyKey == told { state.sending = nil }
            if let sending = state.sending { return (sending, state.pendingChanges.count) }
            let changes = Outbox.nextBatch(of: state.pendingChanges)
            guard let first = changes.first else { return nil }
            let sent = Set(changes.map(\.id))
            state.pendingChanges.removeAll { sent.contains($0.id) }
            // A command's key is its own id; a batch of records gets one of its own.
            let key = (first.record == nil ? first.id : UUID()).uuidString.lowercased()
            let batch = SendingBatch(idempotencyKey: key, changes: changes)
            state.sending = batch
            return (batch, state.pendingChanges.count)
        }
    }

    private func send(_ batch: SendingBatch, pending: Int) async throws {
        let results: [SentChange]
        do {
            results = try await answer(batch)
        } catch let error where Self.sendsAgain(error) {
            throw Self.asWait(error)
        } catch {
            // Refused whole for good (a zone gone, a role that may not, a body refused).
            results = batch.changes.map { SentChange(change: $0, outcome: .failed(error)) }
        }
        await handoff.send(.sent(results, stillPending: pending))
        // Events ended before the app took this one: it is told again on the next launch.
        guard !handoff.isFinished else { throw CancellationError() }
    }

    /// The server's answer to one request, per change.
    private func answer(_ batch: SendingBatch) async throws(FamilySyncError) -> [SentChange] {
        if let first = batch.changes.first, case .command(let child, let request) = first.kind {
            let command = try await client.sendCommand(to: child, request, idempotencyKey: batch.idempotencyKey)
            return [SentChange(change: first, outcome: .commandCreated(command))]
        }
        guard let zone = batch.changes.first?.record?.zone else { return [] }
        let operations = batch.changes.compactMap { change -> RecordOperation? in
            if case .record(_, let operation) = change.kind { return operation }
            return nil
        }
        let outcomes = try await client.save(operations, in: zone, idempotencyKey: batch.idempotencyKey)
        guard outcomes.count == batch.changes.count else {
            throw FamilySyncError(.internalError, "The server answered \(outcomes.count) records for \(batch.changes.count) sent.")
        }
        return zip(batch.changes, outcomes).map { change, outcome in
            switch outcome {
            case .saved(let record): SentChange(change: change, outcome: .saved(record))
            case .conflict(let server, let error): SentChange(change: change, outcome: .conflict(serverRecord: server, error: error))
            case .failed(let error): SentChange(change: change, outcome: .failed(error))
            }
        }
    }

    /// Whether a request's failure is one to send it again after a wait (the same key, so at most
    /// once in effect): the server unreachable or shedding, a bug, the first copy still being
    /// answered, or the credential refused (which ends the engine instead).
    static func sendsAgain(_ error: FamilySyncError) -> Bool {
        switch error.code {
        case .tryAgainLater, .throttled, .internalError, .authenticationRequired: true
        case .conflict: error.field == IdempotencyKey.header && error.retryAfter != nil
        default: false
        }
    }

    /// The failure as the run loop's wait: "still being answered" waits its `retryAfter`.
    static func asWait(_ error: FamilySyncError) -> FamilySyncError {
        guard error.code == .conflict else { return error }
        return FamilySyncError(.tryAgainLater, error.reason, retryAfter: error.retryAfter)
    }

    /// The credential was refused: nothing pending can be sent by this device any more. Each change
    /// is told as failed with the reason, and leaves the state.
    func failEveryPendingChange(_ error: FamilySyncError) async throws {
        let unsent = try store.load().unsentChanges
        guard !unsent.isEmpty else { return }
        await handoff.send(.sent(unsent.map { SentChange(change: $0, outcome: .failed(error)) }, stillPending: 0))
        // Events ended before the app took this one: they stay, to be told on the next launch.
        guard !handoff.isFinished else { return }
        let told = Set(unsent.map(\.id))
        try store.update { state in
            state.pendingChanges.removeAll { told.contains($0.id) }
            if let sending = state.sending, sending.changes.allSatisfy({ told.contains($0.id) }) { state.sending = nil }
        }
    }

    /// The names of the records the app changed and has not been told about, by zone.
    func unsentRecords() throws -> [String: Set<String>] {
        try store.load().unsentChanges.compactMap(\.record).reduce(into: [:]) { $0[$1.zone, default: []].insert($1.recordName) }
    }
}
