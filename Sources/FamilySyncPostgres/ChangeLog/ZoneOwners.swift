import FamilySyncCore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The zone owners one transaction read.
final class ZoneOwners: Sendable {
    private let read = Mutex<[UUID: ZoneOwner]>([:])

    func owner(of deviceID: UUID) -> ZoneOwner? { read.withLock { $0[deviceID] } }
    func keep(_ owner: ZoneOwner) { read.withLock { $0[owner.deviceID] = owner } }
}
