import FamilySyncCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The write side of push (PROTOCOL §12): a change log with it writes, in the transaction of each
/// change, the outbox rows of the pushes the change calls for. Without it (push off) nothing is
/// written and a write costs what it did before.
public struct PushOutbox: Sendable {
    /// The channel a transaction that queued pushes notifies, so that senders claim them at once.
    public static let channel = "familysync_pushes"

    let clock: any WallClock

    public init(clock: any WallClock) {
        self.clock = clock
    }
}

/// What a transaction of a family with push registrations changed, kept until its end, when the
/// outbox rows are written once for all of it (a transaction publishes many times).
final class PendingPushes: Sendable {
    private struct State {
        var changes: [(notice: ChangeNotice, writer: UUID?)] = []
        var alerts: [Alert] = []
    }

    let outbox: PushOutbox
    private let state = Mutex(State())

    init(outbox: PushOutbox) {
        self.outbox = outbox
    }

    func add(_ notices: [ChangeNotice], writer: UUID?) {
        state.withLock { $0.changes += notices.map { ($0, writer) } }
    }

    func add(_ alerts: [Alert]) {
        state.withLock { $0.alerts += alerts }
    }

    func take() -> (changes: [(notice: ChangeNotice, writer: UUID?)], alerts: [Alert]) {
        state.withLock { state in
            defer { state = State() }
            return (state.changes, state.alerts)
        }
    }
}
