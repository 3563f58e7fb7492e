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
