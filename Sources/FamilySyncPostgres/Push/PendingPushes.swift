import FamilySyncCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

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
