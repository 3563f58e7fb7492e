import FamilySyncCore
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The long polls this instance holds, in memory (PROTOCOL §6). A held poll is a suspended task
/// with a continuation here: no database connection, no thread. Notices from the database
/// listener wake only the polls they concern; a woken poll reads the database to learn what
/// changed, so a spurious wake-up costs a read and never a wrong answer.
package final class PollHub: Sendable {
    /// Why a waiting poll resumed.
    enum Wake: Sendable, Equatable {
        /// Something it may see changed (or the listener reconnected and notices may be lost):
        /// read again. `noticed` is when the first such notice arrived, for the wake latency.
        case recheck(noticed: ContinuousClock.Instant)
        /// A newer poll of the same device took its place.
        case superseded
        /// The server is shutting down.
        case shuttingDown
        case timedOut
        /// The waiting task was cancelled (the client went away).
        case cancelled

        var isFinal: Bool {
            if case .recheck = self { return false }
            return true
        }

        /// For the wait's span: `recheck`, `superseded`, `shutting_down`, `timed_out`, `cancelled`.
        var name: String {
            switch self {
            case .recheck: "recheck"
            case .superseded: "superseded"
            case .shuttingDown: "shutting_down"
            case .timedOut: "timed_out"
            case .cancelled: "cancelled"
            }
        }
    }

    struct Ticket: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private struct Waiter {
        var device: AuthenticatedDevice
        var pending: Wake?
        var continuation: CheckedContinuation<Wake, Never>?
        /// The deadline of the wait in progress: a timer of an earlier wait that fires late finds
        /// another deadline here and does nothing.
        var deadline: ContinuousClock.Instant?
        /// A deadline whose timer fired before its wait had stored its continuation.
        var expired: ContinuousClock.Instant?
        /// Counted on the gauge: set when its first wait begins, its first read done.
        var held = false
    }

    private struct State {
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var byFamily: [UUID: Set<UInt64>] = [:]
        /// Each device's polls, oldest first.
        var byDevice: [UUID: [UInt64]] = [:]

        /// Records `wake` for the waiter and returns the continuation to resume, if it is waiting.
        /// A final wake is kept over a recheck; the first recheck's instant is kept over later ones.
        mutating func signal(_ id: UInt64, _ wake: Wake) -> (CheckedContinuation<Wake, Never>, Wake)? {
            guard var waiter = waiters[id] else { return nil }
            defer { waiters[id] = waiter }
            if let continuation = waiter.continuation {
                waiter.continuation = nil
                waiter.deadline = nil
                return (continuation, wake)
            }
            switch waiter.pending {
            case nil: waiter.pending = wake
            case .recheck?: if wake.isFinal { waiter.pending = wake }
            case .some: break
            }
            return nil
        }
    }

    private let state = Mutex(State())
    private let onCountChange: @Sendable (Int) -> Void
    /// Where the waits' deadlines run: an event loop's timer heap costs a small allocation a wait,
    /// where a task group with a sleeping child task cost about 5 KiB a held poll.
    private let timers: any EventLoop

    /// `onCountChange` hears +1 as a poll begins to hold (its first read done: a poll still reading
    /// can yet answer 503, so a gauge that counted it would tell a watcher "held" too soon) and -1
    /// as a held poll goes (the active-poll gauge).
    package init(
        timers: any EventLoop = MultiThreadedEventLoopGroup.singleton.next(), onCountChange: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.timers = timers
        self.onCountChange = onCountChange
    }

    /// The polls subscribed, reading or waiting.
    var count: Int { state.withLock { $0.waiters.count } }

    /// The polls waiting for a wake now (counted one by one: for tests, which need to know that
    /// a poll has done its first read and holds).
    package var waiting: Int { state.withLock { $0.waiters.values.count { $0.continuation != nil } } }

    /// Registers a poll of `device`: from now on notices that concern it are kept for it, so one
    /// that arrives while the poll reads the database is not lost. A device's fifth poll makes
    /// its oldest one answer.
    func subscribe(_ device: AuthenticatedDevice) -> Ticket {
        let (ticket, resume) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.waiters[id] = Waiter(device: device)
            state.byFamily[device.familyID, default: []].insert(id)
            state.byDevice[device.deviceID, default: []].append(id)
            var resume: (CheckedContinuation<Wake, Never>, Wake)?
            if state.byDevice[device.deviceID]!.count > LongPollRules.maximumPerDevice {
                let oldest = state.byDevice[device.deviceID]!.removeFirst()
                resume = state.signal(oldest, .superseded)
            }
            return (Ticket(id: id), resume)
        }
        resume.map { $0.0.resume(returning: $0.1) }
        return ticket
    }

    func unsubscribe(_ ticket: Ticket) {
        let wasHeld = state.withLock { state in
            guard let waiter = state.waiters.removeValue(forKey: ticket.id) else { return false }
            state.byFamily[waiter.device.familyID]?.remove(ticket.id)
            if state.byFamily[waiter.device.familyID]?.isEmpty == true { state.byFamily[waiter.device.familyID] = nil }
            state.byDevice[waiter.device.deviceID]?.removeAll { $0 == ticket.id }
            if state.byDevice[waiter.device.deviceID]?.isEmpty == true { state.byDevice[waiter.device.deviceID] = nil }
            return waiter.held
        }
        if wasHeld { onCountChange(-1) }
    }

    /// Wakes the polls a notice concerns.
    func deliver(_ notice: ChangeNotice, at instant: ContinuousClock.Instant = .now) {
        let resumes = state.withLock { state in
            (state.byFamily[notice.familyID] ?? []).compactMap { id -> (CheckedContinuation<Wake, Never>, Wake)? in
                guard let waiter = state.waiters[id], notice.concerns(waiter.device) else { return nil }
                return state.signal(id, .recheck(noticed: instant))
            }
        }
        for (continuation, wake) in resumes { continuation.resume(returning: wake) }
    }

    /// Wakes every poll to read again: after the listener (re)connects, notices may have been missed.
    func wakeAll(at instant: ContinuousClock.Instant = .now) {
        let resumes = state.withLock { state in
            Array(state.waiters.keys).compactMap { state.signal($0, .recheck(noticed: instant)) }
        }
        for (continuation, wake) in resumes { continuation.resume(returning: wake) }
    }

    /// Makes one poll answer now (the server is shutting down).
    func release(_ ticket: Ticket, _ wake: Wake) {
        if let (continuation, wake) = state.withLock({ $0.signal(ticket.id, wake) }) { continuation.resume(returning: wake) }
    }

    /// The next wake of the poll, or `.timedOut` at `deadline`, or `.cancelled`.
    func wait(_ ticket: Ticket, until deadline: ContinuousClock.Instant) async -> Wake {
        let begins = state.withLock { state -> Bool in
            guard state.waiters[ticket.id]?.held == false else { return false }
            state.waiters[ticket.id]?.held = true
            return true
        }
        if begins { onCountChange(1) }
        let left = max(ContinuousClock.now.duration(to: deadline), .zero)
        let timer = timers.scheduleTask(in: TimeAmount(left)) { self.expire(ticket, at: deadline) }
        defer { timer.cancel() }
        // Here rather than in a function of its own: one frame fewer in a held poll's task,
        // which keeps the memory of its deepest stack while its connection lives.
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                let immediate: Wake? = state.withLock { state in
                    guard var waiter = state.waiters[ticket.id] else { return .cancelled }
                    if Task.isCancelled { return .cancelled }
                    if let pending = waiter.pending {
                        // A final wake stays, so that a later wait sees it too.
                        if !pending.isFinal { waiter.pending = nil }
                        state.waiters[ticket.id] = waiter
                        return pending
                    }
                    // The timer fired before the continuation was here.
                    if waiter.expired == deadline || ContinuousClock.now >= deadline { return .timedOut }
                    waiter.continuation = continuation
                    waiter.deadline = deadline
                    state.waiters[ticket.id] = waiter
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Wake, Never>? in
                let continuation = state.waiters[ticket.id]?.continuation
                state.waiters[ticket.id]?.continuation = nil
                state.waiters[ticket.id]?.deadline = nil
                return continuation
            }
            continuation?.resume(returning: .cancelled)
        }
    }

    /// A wait's deadline came: it answers `.timedOut` if it is still that wait.
    private func expire(_ ticket: Ticket, at deadline: ContinuousClock.Instant) {
        let continuation = state.withLock { state -> CheckedContinuation<Wake, Never>? in
            guard var waiter = state.waiters[ticket.id] else { return nil }
            defer { state.waiters[ticket.id] = waiter }
            guard waiter.deadline == deadline, let continuation = waiter.continuation else {
                // Its wait has not stored its continuation yet: it finds this and ends at once.
                if waiter.continuation == nil { waiter.expired = deadline }
                return nil
            }
            waiter.continuation = nil
            waiter.deadline = nil
            return continuation
        }
        continuation?.resume(returning: .timedOut)
    }
}
