import FamilySyncCore
import Foundation

/// Who makes a change, handed to `ChangeLog.write` with it: the actor its audit entries name
/// (§15.4), and the request's idempotency key (§1.2.1), which commits with the request's first
/// write or not at all.
public struct ChangeWriter: Sendable {
    public var actor: AuditActor
    public var claim: IdempotencyClaim?

    public init(actor: AuditActor, claim: IdempotencyClaim? = nil) {
        self.actor = actor
        self.claim = claim
    }

    /// A periodic job, an operator's command, or anything else done outside a request.
    public static let server = ChangeWriter(actor: .server)
}
