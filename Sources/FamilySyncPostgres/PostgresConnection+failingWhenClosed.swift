import FamilySyncCore
import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// How often a lease's watchdog looks at its connection. Most requests end before the first look.
    static let closedCheckInterval: Duration = .milliseconds(250)

    /// Runs `body` with this connection, and answers `TRY_AGAIN_LATER` once the connection is
    /// closed under it, without waiting for `body`. PostgresNIO (1.33) writes a query to a channel
    /// that has already closed without failing it (the write's error is dropped), so a statement
    /// sent just as the database died was never answered: the request, its pool lease and the
    /// server's shutdown hung. `body` runs in a task of its own so that nothing waits for one
    /// that never ends; it is cancelled with the caller. That task is left behind only when the
    /// connection is gone, where it can write nothing more.
    func failingWhenClosed<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let outcome = SingleOutcome<Result>()
        let work = Task {
            do {
                outcome.resolve(.success(try await body()))
            } catch {
                outcome.resolve(.failure(error))
            }
        }
        let watchdog = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.closedCheckInterval)
                if isClosed {
                    outcome.resolve(.failure(FamilySyncError.unavailable("The database is unavailable.")))
                    return
                }
            }
        }
        defer { watchdog.cancel() }
        return try await withTaskCancellationHandler {
            try await outcome.value
        } onCancel: {
            work.cancel()
        }
    }
}

/// The first of several outcomes (work that ends, a deadline, a watchdog), for one waiter.
public final class SingleOutcome<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Value, any Error>?
    }

    private let state = Mutex(State())

    public init() {}

    public func resolve(_ result: Result<Value, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
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
