import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// The offline queue of usage uploads (PROTOCOL §7.2): records are saved before anything is sent,
/// and dropped only once the server has them. Uploads are idempotent by `recordID`, so a batch
/// that reached the server before a crash is simply counted as duplicates when it is sent again.
public actor UsageUploadQueue {
    public struct Backoff: Sendable {
        public var initial: Duration
        public var maximum: Duration
        public var attempts: Int

        public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60), attempts: Int = 6) {
            self.initial = initial
            self.maximum = maximum
            self.attempts = attempts
        }
    }

    let store: any SyncStateStore
    let backoff: Backoff
    /// Sleeps between attempts; tests replace it to record the waits instead.
    let sleep: @Sendable (Duration) async throws -> Void

    public init(store: any SyncStateStore, backoff: Backoff = Backoff(), sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.store = store
        self.backoff = backoff
        self.sleep = sleep
    }

    /// Records to send; saved before this returns.
    public func enqueue(_ records: [UsageRecordBody]) async throws {
        var state = try await store.load()
        let queued = Set(state.pendingUsage.map(\.recordID))
        state.pendingUsage += records.filter { !queued.contains($0.recordID) }
        try await store.save(state)
    }

    public func pending() async throws -> [UsageRecordBody] {
        try await store.load().pendingUsage
    }

    public struct Delivery: Sendable, Equatable {
        public var accepted = 0
        public var duplicates = 0
        public var summaries: [DailySummaryBody] = []
    }

    /// Sends everything queued, in batches of at most 1000, oldest first. A server that cannot be
    /// reached, is unavailable or asks to wait (429 with `Retry-After`) is tried again after the
    /// wait it asked for, else an exponential backoff with jitter, up to `attempts` times; then
    /// the error is thrown and the queue keeps what was not delivered. Any other error (a record
    /// the server refuses, a revoked credential) is thrown at once: retrying cannot help.
    @discardableResult
    public func flush(with client: FamilySyncClient, timeZone: String? = nil) async throws -> Delivery {
        var delivery = Delivery()
        while true {
            let state = try await store.load()
            guard !state.pendingUsage.isEmpty else { return delivery }
            let batch = Array(state.pendingUsage.prefix(UsageSession.maximumPerUpload))
            let answer = try await send(batch, with: client, timeZone: timeZone)
            delivery.accepted += answer.accepted
            delivery.duplicates += answer.duplicates
            delivery.summaries += answer.summaries
            // Dropped only now, and only what was sent (more may have been queued meanwhile).
            var after = try await store.load()
            let sent = Set(batch.map(\.recordID))
            after.pendingUsage.removeAll { sent.contains($0.recordID) }
            try await store.save(after)
        }
    }

    private func send(_ batch: [UsageRecordBody], with client: FamilySyncClient, timeZone: String?) async throws -> UsageUploadResponse {
        var delay = backoff.initial
        var attempt = 1
        while true {
            let outcome = await Result(catching: { () async throws(FamilySyncError) -> UsageUploadResponse in
                try await client.uploadUsage(UsageUploadRequest(timeZone: timeZone, records: batch))
            })
            switch outcome {
            case .success(let answer):
                return answer
            case .failure(let error):
                guard error.code == .tryAgainLater || error.code == .throttled, attempt < backoff.attempts else { throw error }
                let wait = error.retryAfter.map { Duration.seconds($0) } ?? delay * Double.random(in: 0.5...1.0)
                try await sleep(wait)
                delay = min(delay * 2, backoff.maximum)
                attempt += 1
            }
        }
    }
}

extension Result where Failure == FamilySyncError {
    /// The outcome of a call that throws `FamilySyncError`.
    init(isolation: isolated (any Actor)? = #isolation, catching body: () async throws(FamilySyncError) -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
