import Synchronization

/// At most `limit` holders at once; the rest wait in line. Tests use it to bound how many servers
/// (each with its connection pool and LISTEN connection) run at once against the shared cluster.
public final class AsyncSemaphore: Sendable {
    private struct State {
        var available: Int
        var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private let state: Mutex<State>
    public let limit: Int

    public init(limit: Int) {
        self.limit = limit
        state = Mutex(State(available: limit))
    }

    public func withPermit<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        try await acquire()
        defer { release() }
        return try await body()
    }

    /// Waits in line; a cancelled waiter leaves the line and throws, so that a test cancelled by
    /// its time limit ends instead of waiting on for a permit it no longer wants.
    private func acquire() async throws {
        let ticket = UInt64.random(in: 0 ... .max)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted = state.withLock { state -> Bool? in
                    if Task.isCancelled { return nil }
                    guard state.available > 0 else {
                        state.waiters.append((ticket, continuation))
                        return false
                    }
                    state.available -= 1
                    return true
                }
                switch granted {
                case true?: continuation.resume()
                case nil: continuation.resume(throwing: CancellationError())
                case false?: break
                }
            }
        } onCancel: {
            let left = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            left?.resume(throwing: CancellationError())
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }
}
