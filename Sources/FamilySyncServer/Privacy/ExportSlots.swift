import Foundation
import Synchronization

/// The exports this instance streams (PROTOCOL §15.2): each holds a database connection for its
/// whole length, so at most `limit` at once, and one a family: another family's export, or a
/// flood of one family's, never takes every connection. Past that, 503 `exports_busy`.
package final class ExportSlots: Sendable {
    let limit: Int
    private let running = Mutex<Set<UUID>>([])

    package init(limit: Int = 2) {
        self.limit = limit
    }

    /// A slot for `family`'s export, given back when the slot is released (the response written
    /// or dropped); nil when none is free.
    func take(_ family: UUID) -> Slot? {
        let taken = running.withLock { families -> Bool in
            guard families.count < limit, !families.contains(family) else { return false }
            families.insert(family)
            return true
        }
        return taken ? Slot(slots: self, family: family) : nil
    }

    fileprivate func release(_ family: UUID) {
        _ = running.withLock { $0.remove(family) }
    }

    /// Held by the response body: released when its reading of the database ends, or when the
    /// body goes, whether or not it was ever written.
    final class Slot: Sendable {
        private let slots: ExportSlots
        private let family: UUID
        private let released = Atomic<Bool>(false)

        fileprivate init(slots: ExportSlots, family: UUID) {
            self.slots = slots
            self.family = family
        }

        /// Gives the slot back; once, however often called.
        func release() {
            guard !released.exchange(true, ordering: .relaxed) else { return }
            slots.release(family)
        }

        deinit { release() }
    }
}
