import FamilySyncCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The notices a transaction sent, for what must follow its commit in this instance.
final class PublishedNotices: Sendable {
    private let sent = Mutex<[ChangeNotice]>([])

    func add(_ notices: [ChangeNotice]) {
        sent.withLock { $0.append(contentsOf: notices) }
    }

    var notices: [ChangeNotice] {
        sent.withLock { $0 }
    }
}
