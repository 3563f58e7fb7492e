import FamilySyncCore
import Foundation
import Synchronization

/// A request's `Idempotency-Key` (PROTOCOL §1.2.1), for the change log: the first write
/// transaction of the request writes the key with its changes, so the key exists if and only if
/// they committed. The server's middleware puts it in the request's context, whose
/// `ChangeWriter` carries it to every write.
public final class IdempotencyClaim: Sendable {
    public let familyID: UUID
    public let deviceID: UUID
    public let key: String
    public let requestHash: [UInt8]
    public let requestPath: String
    public let now: Date
    /// Whether a transaction of this request holds or committed the key.
    private let written = Atomic<Bool>(false)

    public init(familyID: UUID, deviceID: UUID, key: String, requestHash: [UInt8], requestPath: String, now: Date) {
        self.familyID = familyID
        self.deviceID = deviceID
        self.key = key
        self.requestHash = requestHash
        self.requestPath = requestPath
        self.now = now
    }

    /// The key for a transaction of `familyID` to write, unless one of the request's did already.
    func take(for familyID: UUID) -> Bool {
        familyID == self.familyID && written.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }

    /// The transaction that wrote the key rolled back: the request's next one writes it.
    func release() {
        written.store(false, ordering: .relaxed)
    }
}

extension IdempotencyClaim {
    /// The key was written by another request's transaction, committed before this one took the
    /// family's lock: the same request sent twice at once. The middleware answers as for a key
    /// found (the first one's answer, or "still being answered").
    public struct Taken: Error {}
}
