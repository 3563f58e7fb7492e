import FamilySyncCore
import Hummingbird
import Synchronization

/// The application's router as a responder, for answering requests in process (the dashboard's
/// SDK calls): set once the router is built, nil before.
package final class APIResponder: Sendable {
    private let responder = Mutex<RouterResponder<FamilySyncRequestContext>?>(nil)

    package init() {}

    package func set(_ responder: RouterResponder<FamilySyncRequestContext>) {
        self.responder.withLock { $0 = responder }
    }

    package func get() -> RouterResponder<FamilySyncRequestContext>? {
        responder.withLock { $0 }
    }
}
