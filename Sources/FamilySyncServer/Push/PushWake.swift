import FamilySyncCore
import FamilySyncPostgres
import Synchronization

/// What wakes an idle push sender: a transaction queued pushes (the outbox channel's notice), the
/// listener (re)connected (notices may have been lost), or a test that moved the clock. A signal
/// while the sender is busy is kept, so that it looks again as soon as it is done.
public final class PushWake: ChangeNoticeSink, Sendable {
    private struct State {
        var pending = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    public func signal() {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil as CheckedContinuation<Void, Never>?
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns on a signal (one that came since the last wait included), after `timeout`, or when
    /// the task is cancelled.
    func wait(timeout: Duration) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            resume(id)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = (id, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            resume(id)
        }
    }

    private func resume(_ id: UInt64) {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter, waiter.id == id else { return nil as CheckedContinuation<Void, Never>? }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    public func deliver(_ notice: ChangeNotice) { signal() }
    public func listenerDidConnect() { signal() }
    public func listenerDidDisconnect() {}
}
