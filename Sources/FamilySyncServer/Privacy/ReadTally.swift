import FamilySyncCore
import FamilySyncPostgres
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Parents' reads of the family's data counted in this instance (PROTOCOL §15.4) and added to
/// the database every `interval` and at shutdown, in one statement: a read costs no write of its
/// own. What a crash loses is at most an interval's counts.
package final class ReadTally: Sendable {
    package init() {}

    private let counts = Mutex<[AuditReadsKey: Int]>([:])

    func count(_ key: AuditReadsKey) {
        counts.withLock { $0[key, default: 0] += 1 }
    }

    /// Takes what was counted since the last take.
    func take() -> [AuditReadsKey: Int] {
        counts.withLock { counts in
            defer { counts = [:] }
            return counts
        }
    }

    /// Puts counts back (a flush that failed), added to what came since.
    func restore(_ taken: [AuditReadsKey: Int]) {
        counts.withLock { counts in counts.merge(taken, uniquingKeysWith: +) }
    }
}
