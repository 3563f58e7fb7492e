import AsyncAlgorithms
import FamilySyncPostgres
import FamilySyncProtocol
import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Whether an export's time is up, shared by its timer and its producer.
final class ExportExpiry: Sendable {
    private let expired = Atomic<Bool>(false)

    func expire() { expired.store(true, ordering: .relaxed) }
    var isExpired: Bool { expired.load(ordering: .relaxed) }
}
