import FamilySyncCore
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// What hears the change notices an instance's listener receives.
public protocol ChangeNoticeSink: Sendable {
    func deliver(_ notice: ChangeNotice)
    /// The listener is (again) subscribed. Notices sent while it was not were lost: every poll
    /// must read again.
    func listenerDidConnect()
    func listenerDidDisconnect()
}
