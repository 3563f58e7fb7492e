import FamilySyncCore
import FamilySyncProtocol
import Foundation

/// The offline queue of usage uploads (PROTOCOL §7.2): records are saved before anything is sent,
/// and dropped only once the server has them. Uploads are idempotent by `recordID`, so a batch
/// that reached the server before a crash is simply counted as duplicates when it is sent again.
public actor UsageUploadQueue {
    /// The queue's waits, and the engine's (`RetryBackoff`).
    public typealias Backoff = RetryBackoff

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
    public func enqueue(_ records: [UsageRecordBody]) throws {
        try store.update { state in
            var queued = Set(state.pendingUsage.map(\.recordID))
            for record in records where queued.insert(record.recordID).inserted { state.pendingUsage.append(record) }
        }
    }

    public func pending() throws -> [UsageRecordBody] {
        try store.load().pendingUsage
    }

    public struct Delivery: Sendable, Equatable {
        public var accepted = 0
        public var duplicates = 0
        public var summaries: [DailySummaryBody] = []
        /// Records the server refused, each with its reason; they are no longer queued.
        public var rejected: [Rejection] = []
    }

    /// A queued record the server will never take as it is (invalid, or its `recordID` already
    /// stored with other content): sending it again would fail again and hold back the rest.
    public struct Rejection: Sendable, Equatable {
        public var record: UsageRecordBody
        public var error: FamilySyncError
    }

    /// Sends everything queued, in batches of at most 1000, oldest first. A server that cannot be
    /// reached, is unavailable or asks to wait (429 with `Retry-After`) is tried again after the
    /// wait it asked for, else an exponential backoff with jitter, up to `attempts` times; then
    /// the error is thrown and the queue keeps what was not delivered. A record the server refuses
    /// (`BAD_REQUEST` or `CONFLICT` naming `records[i]`) leaves the queue and is reported in
    /// `rejected`, and the rest of its batch is sent again. Any other error (a revoked credential,
    /// a refusal of the whole batch) is thrown at once, and the queue keeps everything.
    @discardableResult
    public func flush(with client: FamilySyncClient, timeZone: String? = nil) async throws -> Delivery {
        var delivery = Delivery()
        while true {
            let state = try store.load()
            guard !state.pendingUsage.isEmpty else { return delivery }
            let batch = Array(state.pendingUsage.prefix(UsageSession.maximumPerUpload))
            let answer: UsageUploadResponse
            do {
                answer = try await send(batch, with: client, timeZone: timeZone)
            } catch let error as FamilySyncError {
                guard [.badRequest, .conflict].contains(error.code), let index = Self.recordIndex(error.field), index < batch.count else { throw error }
                let refused = batch[index]
                try store.update { $0.pendingUsage.removeAll { $0.recordID == refused.recordID } }
                delivery.rejected.append(Rejection(record: refused, error: error))
                continue
            }
            delivery.accepted += answer.accepted
            delivery.duplicates += answer.duplicates
            delivery.summaries += answer.summaries
            // Dropped only now, and only what was sent (more may have been queued meanwhile).
            let sent = Set(batch.map(\.recordID))
            try store.update { $0.pendingUsage.removeAll { sent.contains($0.recordID) } }
        }
    }

    /// `N` of a field `records[N]…`: the record of the batch an error is about.
    static func recordIndex(_ field: String?) -> Int? {
        guard let field, field.hasPrefix("records["), let end = field.firstIndex(of: "]") else { return nil }
        return Int(field[field.index(field.startIndex, offsetBy: 8)..<end])
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
                let (wait, next) = backoff.wait(after: error, delay: delay)
                try await sleep(wait)
                delay = next
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
