import FamilySyncCore
import FamilySyncProtocol
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The request bodies arriving at once from each address block, across the server's connections
/// (`BodyArrivalPace`).
package final class BodiesInFlight: Sendable {
    let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    package init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more body from `key`; false, counting nothing, when `limit` are arriving already.
    func enter(_ key: String) -> Bool {
        counts.withLock { counts in
            let count = counts[key, default: 0]
            guard count < limit else { return false }
            counts[key] = count + 1
            return true
        }
    }

    func leave(_ key: String) {
        counts.withLock { counts in
            let count = counts[key, default: 0] - 1
            counts[key] = count > 0 ? count : nil
        }
    }
}
