import Synchronization

/// The first of several outcomes (work that ends, a deadline, a watchdog), for one waiter.
public final class SingleOutcome<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())

    public init() {}

    /// Settles the outcome unless it is settled already; whether this call settled it.
    @discardableResult
    public func resolve(_ result: Result<Value, any Error>) -> Bool {
        let (settled, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Value, any Error>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: result)
        return settled
    }

    /// `body` in a task of its own against `watch` beside it (a deadline, a watchdog): whichever
    /// settles first is the answer, and nothing waits for the other, so a body that never ends
    /// cannot hang the caller. `body` is cancelled with the caller, and when `watch` wins if
    /// `cancellingBodyWhenWatchWins`; `watch` is cancelled once there is an answer.
    public static func race(
        _ body: @escaping @Sendable () async throws -> Value, cancellingBodyWhenWatchWins: Bool = false,
        against watch: @escaping @Sendable (_ resolve: @escaping @Sendable (Result<Value, any Error>) -> Void) async -> Void
    ) async throws -> Value {
        let outcome = SingleOutcome<Value>()
        let work = Task {
            do {
                outcome.resolve(.success(try await body()))
            } catch {
                outcome.resolve(.failure(error))
            }
        }
        let watcher = Task {
            await watch { result in
                if outcome.resolve(result), cancellingBodyWhenWatchWins { work.cancel() }
            }
        }
        defer { watcher.cancel() }
        return try await withTaskCancellationHandler {
            try await outcome.value
        } onCancel: {
            work.cancel()
        }
    }

    public var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let result = state.withLock { state -> Result<Value, any Error>? in
                    if state.result == nil { state.waiter = continuation }
                    return state.result
                }
                if let result { continuation.resume(with: result) }
            }
        }
    }
}
