import Synchronization

/// A `SyncEngine`'s events, handed over one at a time: the engine goes on (and saves the token of
/// what it delivered) only when the consumer asks for the next event, that is, once it is done
/// with this one. An event the app was handling when it was killed is therefore delivered again
/// on the next launch, never lost (CKSyncEngine awaits its delegate the same way). One consumer.
public struct SyncEvents: AsyncSequence, Sendable {
    public typealias Element = SyncEvent
    let channel: EventHandoff

    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let channel: EventHandoff

        public mutating func next() async -> SyncEvent? {
            await channel.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channel: channel)
    }
}

/// The rendezvous between the engine (`send`, which returns when the consumer is done with the
/// event) and the consumer (`next`, which first releases the engine from the previous event).
final class EventHandoff: Sendable {
    private struct State {
        /// Sent, not yet taken, each with its sender waiting (none once the events have ended).
        var waiting: [(event: SyncEvent, sender: CheckedContinuation<Void, Never>?)] = []
        /// The sender of the event the consumer holds, released by its next `next()`.
        var held: CheckedContinuation<Void, Never>?
        var consumer: CheckedContinuation<SyncEvent?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Hands `event` over; returns once the consumer asks for the next one, or the events end, or
    /// the sending task is cancelled (which ends the events).
    func send(_ event: SyncEvent) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (sender: CheckedContinuation<Void, Never>) in
                let resume: () -> Void = state.withLock { state in
                    if state.finished { return { sender.resume() } }
                    guard let consumer = state.consumer else {
                        state.waiting.append((event, sender))
                        return {}
                    }
                    state.consumer = nil
                    state.held = sender
                    return { consumer.resume(returning: event) }
                }
                resume()
            }
        } onCancel: {
            finish()
        }
    }

    /// Whether the sender is parked until the consumer asks for the next event: the consumer
    /// holds the last one.
    var senderAwaitsConsumer: Bool {
        state.withLock { $0.held != nil }
    }

    /// Whether the events have ended (`finish`): what is sent now reaches nobody.
    var isFinished: Bool {
        state.withLock { $0.finished }
    }

    /// The next event, once the engine's previous one is released; nil once the events have
    /// ended, or when the consumer's task is cancelled while it waits (an app going to the
    /// background cancels its loop over the events, and must see it end). A cancelled wait takes
    /// no event: what the engine sends next waits for the next `next()`.
    func next() async -> SyncEvent? {
        state.withLock { state in
            defer { state.held = nil }
            return state.held
        }?.resume()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (consumer: CheckedContinuation<SyncEvent?, Never>) in
                let resume: () -> Void = state.withLock { state in
                    if !state.waiting.isEmpty {
                        let (event, sender) = state.waiting.removeFirst()
                        state.held = sender
                        return { consumer.resume(returning: event) }
                    }
                    // Cancelled before it waited: the handler below found no consumer to end.
                    if state.finished || Task.isCancelled { return { consumer.resume(returning: nil) } }
                    state.consumer = consumer
                    return {}
                }
                resume()
            }
        } onCancel: {
            let consumer = state.withLock { state in
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.resume(returning: nil)
        }
    }

    /// Ends the events with a last one, without waiting for the consumer to take it.
    func finish(with event: SyncEvent) {
        let consumer = state.withLock { state -> CheckedContinuation<SyncEvent?, Never>? in
            guard !state.finished else { return nil }
            if let consumer = state.consumer {
                state.consumer = nil
                return consumer
            }
            state.waiting.append((event, nil))
            return nil
        }
        consumer?.resume(returning: event)
        finish()
    }

    /// Ends the events: the consumer's `next()` answers nil once what was sent is taken; every
    /// sender waiting is released.
    func finish() {
        let (consumer, senders) = state.withLock { state -> (CheckedContinuation<SyncEvent?, Never>?, [CheckedContinuation<Void, Never>]) in
            state.finished = true
            defer { state.consumer = nil; state.held = nil }
            // Events sent but not taken stay to be taken; their senders need not wait for that.
            let senders = ([state.held] + state.waiting.map(\.sender)).compactMap { $0 }
            state.waiting = state.waiting.map { ($0.event, nil) }
            return (state.consumer, senders)
        }
        consumer?.resume(returning: nil)
        for sender in senders { sender.resume() }
    }
}
