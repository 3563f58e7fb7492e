import Synchronization

/// At most `limit` holders at once; the rest wait in line. Tests use it to bound how many servers
/// (each with its connection pool and LISTEN connection) run at once against the shared cluster.
public final class AsyncSemaphore: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    public init(limit: Int) {
        state = Mutex(State(available: limit))
    }

    public func withPermit<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                guard state.available > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.available -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
